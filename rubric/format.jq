# The formatting that the rules' templates (*.yaml), the report
# (report.jq) and the diff (diff.jq) share: numbers, bytes, times, lists of
# calls and contributors, and Markdown that shows an artifact's text as it
# is.  Read after facts.jq; it uses nothing of it.

# n rounded to d decimals, as text; past 2^53, as a mantissa of d decimals
# and an exponent.
def dec($d):
  if . == null then "n/a"
  # Past 2^53 the digits are not all there: a mantissa and an exponent.
  elif fabs >= 1e15 then
    (fabs | log10 | floor) as $e
    | (fabs / pow(10; $e) * pow(10; $d) | round) as $m
    | (if $m >= 10 * pow(10; $d) then [$m / 10, $e + 1] else [$m, $e] end)
      as [$mant, $exp]
    | (if . < 0 then "-" else "" end) + ($mant / pow(10; $d) | dec($d))
      + "e+" + ($exp | tostring)
  else (. * pow(10; $d) | round) as $i
    | ($i | fabs | tostring) as $s
    | (if $d == 0 then $s
       else ("0" * ([($d + 1) - ($s | length), 0] | max)) + $s
         | .[0:length - $d] + "." + .[length - $d:] end)
    | (if $i < 0 then "-" + . else . end)
  end;

def count: if . == null then "n/a" else dec(0) end;

def pct: if . == null then "n/a" else (. * 100 | dec(1)) + " %" end;

def bytes:
  if . == null then "n/a"
  elif fabs >= 1073741824 then (. / 1073741824 | dec(2)) + " GiB"
  elif fabs >= 1048576 then (. / 1048576 | dec(1)) + " MiB"
  elif fabs >= 1024 then (. / 1024 | dec(1)) + " KiB"
  else (. | dec(0)) + " B" end;

# Microseconds with the unit that suits them.
def us:
  if . == null then "n/a"
  elif fabs >= 1000000 then (. / 1000000 | dec(2)) + " s"
  elif fabs >= 1000 then (. / 1000 | dec(2)) + " ms"
  else (. | dec(1)) + " µs" end;

# Calls as "hipFree: 1,360 calls, 3.35 s; hipMalloc: 1 call, 3.7 µs", and
# the bytes of copies where the trace counts them.
def calls_list:
  map(.name + ": " + (.count | count) + (if .count == 1 then " call, " else " calls, " end)
    + (.total | us) + (if .bytes != null then ", " + (.bytes | bytes) else "" end))
  | join("; ");

# Callers as "aten::_local_scalar_dense: 1 call, 7.6 µs; Python train.py(64): step: ...;
# outside any operator or Python frame: ...".
def callers_list:
  map(.name = (if .caller == null then "outside any operator or Python frame"
    elif .class == "annotation" then "the " + .caller + " annotation"
    elif .class == "python" then "Python " + .caller else .caller end))
  | calls_list;

# A contributor of a ledger slice or a call's issuer as the chain the
# trace links: the user's frame, the library frame it called through,
# the operator, the runtime call or kernel.
def contrib_label:
  [.frame, .via, .op, .call] | map(select(. != null))
  | if length == 0 then "nothing the trace links to it" else join(" → ") end;

# Contributors as "a → b: 12.3 ms; c: 4.0 ms", the first $n.
def contribs_list($n):
  .[0:$n] | map(contrib_label + ": " + (.time | us)) | join("; ");

# Issuers as "hipDeviceSynchronize from f.py(3): g (harness): 1 call, 13.05 ms".
def issuers_list:
  map(.call + " from " + ([.frame, .via, .op] | map(select(. != null))
      | if length == 0 then "no frame or operator" else join(" → ") end)
    + " (" + .who + "): " + (.count | count) + (if .count == 1 then " call, " else " calls, " end)
    + (.total | us))
  | join("; ");

# Markdown tables, for the report (report.jq) and the diff (diff.jq).

# At most $n characters, cut in the middle: a site's file:line and a
# kernel's template arguments are at the end.
def clip($n):
  if length > $n then (($n - 1) / 3 | floor) as $h
    | .[0:$h] + "…" + .[length - ($n - 1 - $h):]
  else . end;

# Text from an artifact (a name, a path, a context value, a finding's
# sentence) as Markdown that shows it as it is and is never read as
# markup, in a paragraph, a list item or a table cell (the one Markdown
# escaping; tests/fuzz/markdown checks it against cmark-gfm, GitHub's
# parser):
#  - a backslash before what CommonMark or GitHub reads as inline markup:
#    \ ` * [ ] < > & | ~ $ (code, emphasis, links and images, HTML and
#    entities, table cells, strikethrough, math), and _ except inside a
#    word, where it never emphasises;
#  - the extended autolinks broken: "http\://", "www\.";
#  - line ends, which would start a block (a heading, a list item, an
#    action of its own), and other controls, invisible or reordering
#    characters (bidi controls, zero widths, line and paragraph
#    separators, BOM) shown as \n, \r and \uXXXX, as a terminal shows them.
# A text never starts a line in the report, so no block marker needs one.
# An e-mail address stays a mailto: link to the very text shown.
# One substitution of the five patterns at once, where each had its own:
# every gsub compiles its regex and rebuilds the string in libjq 1.6, and
# escaping was most of a report's rendering time.  A text that holds none
# of them is left as it is after one test.  One pass gives what five in
# turn gave: an escape puts a backslash before a character that is no
# letter or digit (or, last of the five, replaces a control), so it
# changes neither what another pattern matches nor what its lookarounds
# see.
def md:
  def u4: "\\u" + ([(. / 4096 | floor) % 16, (. / 256 | floor) % 16,
    (. / 16 | floor) % 16, . % 16] | map("0123456789ABCDEF"[.:. + 1]) | join(""));
  def escapes: "(?<c>[\\\\`*\\[\\]<>&|~$])|(?<u>(?<![A-Za-z0-9])_|_(?![A-Za-z0-9]))"
    + "|(?<s>[A-Za-z]):(?=//)|(?<w>[Ww][Ww][Ww])\\."
    + "|(?<k>[\\x{0}-\\x{8}\\x{a}-\\x{1f}\\x{7f}-\\x{9f}\\x{61c}\\x{200b}-\\x{200f}\\x{2028}-\\x{202e}\\x{2060}-\\x{2069}\\x{feff}])";
  escapes as $re
  | if test($re) | not then .
    else gsub($re;
      if .c != null then "\\" + .c
      elif .u != null then "\\_"
      elif .s != null then .s + "\\:"
      elif .w != null then .w + "\\."
      elif .k == "\n" then "\\n" elif .k == "\r" then "\\r"
      else .k | explode[0] | u4 end)
    end;

# The longest cell a table shows: a context value of a megabyte would
# widen every row of its table to a megabyte.
def max_cell: 200;

def cell:
  if type == "string" then clip(max_cell) | md
  elif . == null then "" else tostring end;

def pad($w; $right):
  if $right then (" " * ($w - length)) + . else . + (" " * ($w - length)) end;

def mdrow($w; $align):
  [range(0; length) as $i | .[$i] | pad($w[$i]; $align[$i] == "r")]
  | "| " + join(" | ") + " |";

def mdrule($w; $align):
  [range(0; $w | length) as $i
   | if $align[$i] == "r" then ("-" * ($w[$i] - 1)) + ":" else "-" * $w[$i] end]
  | "| " + join(" | ") + " |";

# What a table of no rows is; report.jq folds the sections that hold one.
def no_rows: "_None._\n";

# A table whose columns are as wide as their widest cell.
def table($head; $align; $rows):
  if ($rows | length) == 0 then no_rows
  else ([$head] + $rows | map(map(cell))) as $t
    | [range(0; $head | length) as $i
       | [$t[] | .[$i] | length] | max | if . < 3 then 3 else . end] as $w
    | ([$t[0] | mdrow($w; $align)] + [mdrule($w; $align)]
       + [$t[1:][] | mdrow($w; $align)]) | join("\n") + "\n"
  end;
