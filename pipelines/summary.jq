# A readable summary of tr-extract records, one block per trace:
#   tr-extract trace.json.gz | jq -rn -f pipelines/summary.jq
# It reads every record into memory: meant for the bundled example and
# small traces; the report tools stream.

def us: if . >= 1000000 then "\(. / 1000000 * 1000 | round / 1000) s"
	elif . >= 1000 then "\(. / 1000 * 100 | round / 100) ms"
	else "\(. * 1000 | round / 1000) µs" end;
def pad($n): tostring | . + " " * ([$n - length, 0] | max);
def lpad($n): tostring | " " * ([$n - length, 0] | max) + .;
def top($n; sel):
	map(select(.kind == "event") | select(sel))
	| group_by(.name)
	| map({name: .[0].name, count: length, total: (map(.dur) | add)})
	| sort_by(-.total, .name) | .[:$n];
def table: map("  \(.total | us | lpad(12))  \(.count | lpad(7))  \(.name[:90])") | join("\n");

reduce inputs as $r ({cur: [], out: []};
	if $r.kind == "trace" then .out += [{trace: $r, recs: .cur}] | .cur = []
	else .cur += [$r] end)
| .out[]
| .trace as $t | .recs as $recs
| [
	"trace    \($t.file) (\($t.format) form, schema \($t.schema_version // "none"))",
	"rank     \($t.rank // "unknown")\(if $t.world_size then " of \($t.world_size)" else "" end)",
	"devices  \(($t.device_properties // []) | map(.name) | unique | join(", ") | if . == "" then "none recorded" else . end)",
	"window   \($t.window | us)",
	"events   \($t.events)   \($t.by_cat | to_entries | sort_by(-.value) | map("\(.key) \(.value)") | join(", "))",
	"",
	"top CPU operators by total time (inclusive)",
	"  \("total" | lpad(12))  \("calls" | lpad(7))  name",
	($recs | top(10; .cat == "cpu_op" or .cat == "Operator") | table),
	"",
	"top GPU kernels by total time",
	"  \("total" | lpad(12))  \("calls" | lpad(7))  name",
	($recs | top(10; .cat == "kernel" or .cat == "Kernel") | table
		| if . == "" then "  (no GPU kernels in this trace)" else . end),
	""
  ]
| join("\n")
