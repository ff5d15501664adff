# Before and after: the comparison of two JSON reports that report-diff
# writes, and that report-md adds to a report as "Before and after" when
# given a baseline.  Reads facts.jq's helpers.  Each action is checked by
# the measures of the two reports: the value of each rule's "measure" on
# the run, which rubric-apply writes as measure records (mrp-rubric(5)).

# A change of at most this fraction of the larger of the two values is
# noise: the verdict is "unchanged".
def noise: 0.05;

def verdict($b; $a; $better):
  if $b == null or $a == null then "unknown"
  elif ($a - $b | fabs) <= noise * ([($a | fabs), ($b | fabs)] | max) then "unchanged"
  elif ($a < $b) == ($better == "lower") then "improved"
  else "regressed" end;

def change($b; $a):
  if $b == null or $a == null then null else $a - $b end;

def status($b; $a):
  if $b == null then "new" elif $a == null then "gone" else "both" end;

# Rows of two lists keyed by name, ranked by the absolute change of $k.
def paired($bl; $al; $k):
  (($bl // []) | map({key: .name, value: .}) | from_entries) as $bm
  | (($al // []) | map({key: .name, value: .}) | from_entries) as $am
  | [($bm + $am) | keys[] as $n
     | {name: $n,
        before_self_us: $bm[$n][$k], after_self_us: $am[$n][$k],
        before_count: $bm[$n].count, after_count: $am[$n].count,
        status: status($bm[$n]; $am[$n])}
     | .change_us = ((.after_self_us // 0) - (.before_self_us // 0))]
  | sort_by([-(.change_us | fabs), .name]);

def kernel_rows($bl; $al):
  paired($bl; $al; "total")
  | map({name, before_us: .before_self_us, after_us: .after_self_us,
         before_count, after_count, status, change_us});

def side_memory($r):
  $r.summary.memory as $m
  | if $m == null and $r.summary.peak == null then null
    else {allocated: $m.allocated, reserved: $m.reserved, active: $m.active,
          inactive_split: $m.inactive_split_bytes, peak: $r.summary.peak,
          fragmentation: ($m.split_fragmentation // $m.fragmentation)} end;

# Each memory figure as {before, after}; null when neither report has one.
def memory_pairs($b; $a):
  side_memory($b) as $x | side_memory($a) as $y
  | if $x == null and $y == null then null
    else reduce ("allocated", "reserved", "active", "inactive_split", "peak",
                 "fragmentation") as $k
      ({}; .[$k] = {before: $x[$k], after: $y[$k]}) end;

# Active bytes by allocation site (the reports' memory_sites), ranked by
# the absolute change.  A site that one report does not list is 0 there
# when that report lists every site, else unknown (null).
def site_rows($b; $a):
  def by_site: .sites | map({key: .site, value: .}) | from_entries;
  def bytes_of($s; $rows; $site):
    if $rows[$site] != null then $rows[$site]
    elif $s.complete then {bytes: 0, blocks: 0}
    else {bytes: null, blocks: null} end;
  if $b.memory_sites == null or $a.memory_sites == null then []
  else ($b.memory_sites | by_site) as $br | ($a.memory_sites | by_site) as $ar
  | [($br + $ar) | keys[]
    | . as $site
    | bytes_of($b.memory_sites; $br; $site) as $x
    | bytes_of($a.memory_sites; $ar; $site) as $y
    | {site: $site, before_bytes: $x.bytes, after_bytes: $y.bytes,
       change_bytes: change($x.bytes; $y.bytes),
       before_blocks: $x.blocks, after_blocks: $y.blocks}]
    | sort_by([-(.change_bytes // 0 | fabs), .site]) end;

# What the two reports do not share, in words.
def not_compared($b; $a):
  def both($what; $x; $y):
    if $x == null and $y == null then empty
    elif $x == null then "\($what): missing from BEFORE"
    elif $y == null then "\($what): missing from AFTER"
    else empty end;
  [ (if $b.version != $a.version
     then "version: BEFORE is mrp \($b.version), AFTER mrp \($a.version); compared as far as they share data"
     else empty end),
    (if $b.scope.rank != $a.scope.rank
     then "rank: BEFORE covers rank \($b.scope.rank), AFTER rank \($a.scope.rank)" else empty end),
    both("operators"; $b.operators; $a.operators),
    both("kernels"; $b.kernel_times; $a.kernel_times),
    both("step_time"; $b.summary.steps.mean; $a.summary.steps.mean),
    both("memory"; side_memory($b); side_memory($a)),
    (if $b.memory_sites != null and $a.memory_sites != null
        and ($b.memory_sites.devices | sort) != ($a.memory_sites.devices | sort)
     then "memory: BEFORE is of device \($b.memory_sites.devices | sort | map(tostring) | join(", ")), "
       + "AFTER of device \($a.memory_sites.devices | sort | map(tostring) | join(", ")); "
       + "their sites are compared all the same" else empty end),
    both("measures"; $b.measures; $a.measures) ];

# A serving engine's steps on both runs (the reports' serving): each
# phase's mean GPU step time and tokens a second, and the time per output
# token; null when neither report has serving steps.
def serving_pairs($b; $a):
  def phases($r): ($r.serving.phases // []) | map({key: .phase, value: .}) | from_entries;
  if $b.serving == null and $a.serving == null then null
  else phases($b) as $x | phases($a) as $y
    | {phases: [($x + $y) | keys_unsorted[] as $p
         | {phase: $p, before_us: $x[$p].mean, after_us: $y[$p].mean,
            change: (if $x[$p].mean == null or $y[$p].mean == null or $x[$p].mean == 0 then null
                     else ($y[$p].mean - $x[$p].mean) / $x[$p].mean end),
            before_tokens_per_s: $x[$p].tokens_per_s, after_tokens_per_s: $y[$p].tokens_per_s}]
         | sort_by({prefill: 0, decode: 1, mixed: 2}[.phase] // 9),
       tpot: {before_us: $b.serving.summary.tpot, after_us: $a.serving.summary.tpot},
       ttft_lower_bound: {before_us: $b.serving.summary.ttft_lower_bound,
                          after_us: $a.serving.summary.ttft_lower_bound}} end;

# The graph replays' share of the GPU's busy time on both runs.
def graph_pair($b; $a):
  if $b.cuda_graphs == null and $a.cuda_graphs == null then null
  else {before_coverage: $b.cuda_graphs.coverage, after_coverage: $a.cuda_graphs.coverage,
        before_launches: $b.cuda_graphs.launches, after_launches: $a.cuda_graphs.launches} end;

# torch.compile on both runs: graph breaks, recompiles, guard time.
def compiled_pair($b; $a):
  if $b.compiled == null and $a.compiled == null then null
  else reduce ("graph_breaks", "recompiles", "guard_time", "compile_time") as $k
    ({}; .[$k] = {before: $b.compiled[$k], after: $a.compiled[$k]}) end;

def diff_record($b; $a):
  {
    before_version: $b.version, after_version: $a.version,
    ops: (if $b.operators == null or $a.operators == null then []
      else paired($b.operators; $a.operators; "self")
        | map(select(.before_self_us != 0 or .after_self_us != 0)) end),
    kernels: (if $b.kernel_times == null or $a.kernel_times == null then []
      else kernel_rows($b.kernel_times; $a.kernel_times) end),
    step_time: {before_us: $b.summary.steps.mean, after_us: $a.summary.steps.mean,
      change_us: change($b.summary.steps.mean; $a.summary.steps.mean),
      change: (if $b.summary.steps.mean == null or $a.summary.steps.mean == null
                  or $b.summary.steps.mean == 0 then null
               else ($a.summary.steps.mean - $b.summary.steps.mean) / $b.summary.steps.mean end)},
    memory: memory_pairs($b; $a),
    memory_sites: site_rows($b; $a),
    noise: noise,
    actions: [($b.actions // [])[]
      | .rule as $r
      | ($b.measures[$r] // null) as $mb | ($a.measures[$r] // null) as $ma
      | ($mb.better // $ma.better // null) as $better
      | {rule: $r, metric, measure_before: $mb.value, measure_after: $ma.value,
         better: $better, verdict: verdict($mb.value; $ma.value; $better)}],
    not_compared: not_compared($b; $a)
  }
  # Only where a report has them, so that other diffs keep their bytes.
  + (serving_pairs($b; $a) | if . == null then {} else {serving: .} end)
  + (graph_pair($b; $a) | if . == null then {} else {cuda_graphs: .} end)
  + (compiled_pair($b; $a) | if . == null then {} else {compiled: .} end);

def mval: if . == null then "n/a" elif . == floor then dec(0) else dec(4) end;

def sign: if . == null then "n/a" elif . > 0 then "+" else "" end;

def md_diff($d):
  "### Actions\n\n"
  + "Each action of BEFORE, with its validation metric's value on both runs.  "
  + "A change of at most \(noise * 100 | dec(0)) % of the larger value is noise (unchanged).\n\n"
  + table(["Rule", "Before", "After", "Better", "Verdict"]; ["l", "r", "r", "l", "l"];
      [$d.actions[] | [.rule, (.measure_before | mval), (.measure_after | mval), (.better // "n/a"), .verdict]])
  + "\n### Step time\n\n"
  + table(["Measure", "Before", "After", "Change"]; ["l", "r", "r", "r"];
      [["Mean step", ($d.step_time.before_us | us), ($d.step_time.after_us | us),
        (if $d.step_time.change == null then "n/a"
         else ($d.step_time.change_us | sign) + ($d.step_time.change_us | us)
           + " (" + ($d.step_time.change | sign) + ($d.step_time.change | pct) + ")" end)]])
  + "\n### Operators\n\n"
  + table(["Operator", "Status", "Calls before", "Calls after", "Self before", "Self after", "Change"];
      ["l", "l", "r", "r", "r", "r", "r"];
      [$d.ops[0:10][] | [(.name | clip(60)), .status, (.before_count | count), (.after_count | count),
        (.before_self_us | us), (.after_self_us | us), ((.change_us | sign) + (.change_us | us))]])
  + "\n### GPU kernels\n\n"
  + table(["Kernel", "Status", "Calls before", "Calls after", "Before", "After", "Change"];
      ["l", "l", "r", "r", "r", "r", "r"];
      [$d.kernels[0:10][] | [(.name | clip(60)), .status, (.before_count | count), (.after_count | count),
        (.before_us | us), (.after_us | us), ((.change_us | sign) + (.change_us | us))]])
  + "\n### Memory\n\n"
  + (if $d.memory == null then "_No memory data._\n"
     else table(["Measure", "Before", "After"]; ["l", "r", "r"];
       [(["Reserved", "reserved"], ["Allocated", "allocated"], ["Active", "active"],
         ["Split free blocks", "inactive_split"], ["Peak", "peak"]) as [$name, $k]
        | [$name, ($d.memory[$k].before | bytes), ($d.memory[$k].after | bytes)]]
       + [["Fragmentation", ($d.memory.fragmentation.before | pct),
           ($d.memory.fragmentation.after | pct)]]) end)
  + (if ($d.memory_sites | length) == 0 then ""
     else "\n### Memory by allocation site\n\n"
       + ([$d.memory_sites[] | select((.change_bytes // 0) > 0)] as $grew
          | if ($grew | length) == 0 then "No allocation site holds more memory after than before.\n\n"
            else "\($grew | length) \(if ($grew | length) == 1 then "site holds" else "sites hold" end) more memory after than before; "
              + "the most: \($grew[0].site | clip(80) | md), +\($grew[0].change_bytes | bytes).\n\n" end)
       + table(["Site", "Before", "After", "Change", "Blocks before", "Blocks after"];
           ["l", "r", "r", "r", "r", "r"];
           [$d.memory_sites[0:10][] | [(.site | clip(80)), (.before_bytes | bytes), (.after_bytes | bytes),
             (if .change_bytes == null then "n/a" else (.change_bytes | sign) + (.change_bytes | bytes) end),
             (.before_blocks | count), (.after_blocks | count)]]) end)
  + (if $d.serving == null then ""
     else "\n### Serving steps\n\n"
       + table(["Measure", "Before", "After", "Change"]; ["l", "r", "r", "r"];
           [($d.serving.phases[] | [.phase + " step, mean", (.before_us | us), (.after_us | us),
              (if .change == null then "n/a" else (.change | sign) + (.change | pct) end)]),
            ["Time per output token", ($d.serving.tpot.before_us | us), ($d.serving.tpot.after_us | us),
             (if $d.serving.tpot.before_us == null or $d.serving.tpot.after_us == null
                 or $d.serving.tpot.before_us == 0 then "n/a"
              else (($d.serving.tpot.after_us - $d.serving.tpot.before_us) / $d.serving.tpot.before_us)
                | (sign + pct) end)]]) end)
  + (if $d.compiled == null then ""
     else "\n### Compiled regions\n\n"
       + table(["Measure", "Before", "After"]; ["l", "r", "r"];
           [["Graph breaks", ($d.compiled.graph_breaks.before | count), ($d.compiled.graph_breaks.after | count)],
            ["Recompiles", ($d.compiled.recompiles.before | count), ($d.compiled.recompiles.after | count)],
            ["Guard time", ($d.compiled.guard_time.before | us), ($d.compiled.guard_time.after | us)],
            ["Compile spans in the windows", ($d.compiled.compile_time.before | us),
             ($d.compiled.compile_time.after | us)]]) end)
  + (if $d.cuda_graphs == null then ""
     else "\n### CUDA graphs\n\n"
       + table(["Measure", "Before", "After"]; ["l", "r", "r"];
           [["Graph launches", ($d.cuda_graphs.before_launches | count), ($d.cuda_graphs.after_launches | count)],
            ["Share of GPU busy in replays", ($d.cuda_graphs.before_coverage | pct),
             ($d.cuda_graphs.after_coverage | pct)]]) end)
  + (if ($d.not_compared | length) == 0 then ""
     else "\n### Not compared\n\n" + ($d.not_compared | map("- " + md + "\n") | join("")) end);

# report-diff --fail-on: what got worse by more than $limit (a fraction)
# beyond the noise, a sentence each.  The step time's noise is measured:
# two standard errors of the difference of the two mean steps, as a
# fraction of the mean before.  A measure has no spread to measure: its
# noise is the verdicts' threshold, and a change from 0 the wrong way is
# worse without bound.
def step_noise($b; $a):
  def var_of_mean: if (.steps // 0) > 0 and .std != null
    then .std * .std / .steps else 0 end;
  (($b | var_of_mean) + ($a | var_of_mean) | sqrt) * 2 / $b.mean;

def worse_by($before; $after; $better):
  (if $better == "lower" then $after - $before else $before - $after end) as $w
  | if $before != 0 then $w / ($before | fabs)
    elif $w > 0 then infinite else 0 end;

# The figures the gate compares: $only's names ("step_time" and rule ids),
# or by default the step time and every action's measure of either report.
# Each is {name, before, after, better}; better is null for a name that
# neither report measures.
def gate_figures($b; $a; $only):
  def phase_mean($r; $p): ($r.serving.phases // []) | map(select(.phase == $p)) | .[0].mean // null;
  ($only // (["step_time"] + ([($b.actions // [])[], ($a.actions // [])[] | .rule] | unique)))
  | map(if . == "step_time"
        then {name: ., before: $b.summary.steps.mean, after: $a.summary.steps.mean, better: "lower"}
        elif . == "tpot"
        then {name: ., before: $b.serving.summary.tpot, after: $a.serving.summary.tpot, better: "lower"}
        elif . == "prefill_step" or . == "decode_step" or . == "mixed_step"
        then {name: ., before: phase_mean($b; .[:-5]), after: phase_mean($a; .[:-5]), better: "lower"}
        else {name: ., before: ($b.measures[.].value // null), after: ($a.measures[.].value // null),
              better: ($b.measures[.].better // $a.measures[.].better // null)} end);

# A figure one report lacks fails the gate: a run that stopped writing
# steps is no faster.  By default a figure neither report has, or a rule
# without a measure, is not compared; a figure named with --compare must
# be in both.
def missing($f; $only):
  if $f.better == null then
    (if $only == null then empty else "\($f.name): no such figure in either report" end)
  elif $f.before == null and $f.after == null then
    (if $only == null then empty else "\($f.name): missing from BEFORE and AFTER" end)
  elif $f.before == null or $f.after == null then
    "\($f.name | if . == "step_time" then "step time" else . end): missing from "
    + (if $f.before == null then "BEFORE" else "AFTER" end)
    + (if $only == null then " (--compare names the figures to compare)" else "" end)
  else empty end;

def regressions($d; $b; $a; $limit; $only):
  [ gate_figures($b; $a; $only)[] as $f
    | if $f.better == null or $f.before == null or $f.after == null then missing($f; $only)
      elif $f.before == $f.after then empty
      elif $f.name == "step_time" then
        ($d.step_time | select(.change != null)
         | step_noise($b.summary.steps; $a.summary.steps) as $n
         | select(.change > $limit + $n)
         | "step time: \(.before_us | us) before, \(.after_us | us) after, "
           + "+\(.change | pct) (limit \($limit | pct), noise \($n | pct))")
      else
        (worse_by($f.before; $f.after; $f.better) as $w
         | select($w > $limit + noise)
         | "\($f.name): \($f.before | mval) before, \($f.after | mval) after, "
           + (if $w == infinite then "worse from 0" else "worse by \($w | pct)" end)
           + " (limit \($limit | pct), noise \(noise | pct); \($f.better) is better)")
      end ];

# report-diff's program: the input is {"before": report, "after": report};
# the output is [the diff, what got worse by more than $limit] (a fraction;
# negative, no gate: an empty list), comparing the figures named in $only
# (null: the default ones).
def diff_report($format; $bname; $aname; $limit; $only):
  diff_record(.before; .after) as $d
  | [ (if $format == "json" then $d
       else "# Before and after\n\n"
         + "Before: \($bname | md), after: \($aname | md).\n\n"
         + md_diff($d)
       end),
      (if $limit < 0 then [] else regressions($d; .before; .after; $limit; $only) end) ];
