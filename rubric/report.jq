# The report that report-md writes: report("markdown") gives the Markdown
# text, report("json") the members of the JSON report record.  It reads the
# gathered records (see facts.jq) and rubric-apply's "finding" records.

def hex:
  if . == null then "n/a"
  else [recurse(if . >= 16 then (. / 16 | floor) else empty end) | . % 16]
    | reverse | map("0123456789abcdef"[.:. + 1]) | "0x" + join("")
  end;

def findings: recs("finding") | sort_by(.place);
def inputs: recs("input");
def rules: recs("rule");

# report-svg's charts of a section, each linked on its own line at the end
# of the section; nothing at all when there are no "chart" records.
def chart_links($section):
  [recs("chart")[] | select(.section == $section)
   | "\n![" + (.title | md) + "](" + .file + ")\n"] | join("");

def slowest_steps($f): $f.step_list | sort_by(-.dur) | .[0:5];
def threads($f): recs("thread_total") | of_rank($f.rank) | .[0:5];
def timelines($f): recs("gpu_timeline") | of_rank($f.rank);
def family_list($f): recs("family_total") | of_rank($f.rank);
def phase_list($f): recs("phase_total") | of_rank($f.rank);
def basis_name($f):
  {step_time: $f.step_time_name, gpu_time: "GPU time",
   reserved_memory: "reserved memory", peak_memory: "peak memory"}[.];

def impact_text($f):
  if .impact == null then
    if .blocking then "the run cannot go on: fix this first"
    elif .capture != null then "not estimated: an artifact is missing"
    else "not estimated from these artifacts" end
  else (.impact.fraction | pct) + " of " + (.impact.basis | basis_name($f))
    + " could be recovered, at most"
    + (if .impact.claimed > .impact.fraction
       then " (it claims " + (.impact.claimed | pct) + "; another finding already counts the rest)"
       else "" end)
  end;

# "at least" where the allocator's window did not cover the whole run.
def peak_text($c):
  if $c == null then "n/a"
  else (if $c.peak_lower_bound == true then "at least " else "" end) + ($c.peak | bytes) end;

def sites_at_peak($c): ($c.top_at_peak // []) | map(select(.size > 0));

def throughput($f):
  if $f.steps == null or ($f.steps.mean // 0) <= 0 or ($f.context.batch_size // null) == null then null
  else ($f.context.batch_size / ($f.steps.mean / 1000000)) as $sps
    | {samples_per_s: $sps,
       tokens_per_s: (if $f.context.seq_len != null then $sps * $f.context.seq_len else null end)}
  end;

# Markdown sections.

# Which rank a section covers: the slowest of several, or the only one.
def rank_label($f):
  if $f.ranks != null and $f.primary_by == "collectives"
  then " (rank \($f.rank), the one the other \($f.nranks - 1) wait for)"
  elif $f.ranks != null then " (rank \($f.rank), the slowest of \($f.nranks))"
  elif $f.rank != null then " (rank \($f.rank))"
  else "" end;

def summed_label($f): if $f.ranks != null then " (all ranks, summed)" else "" end;

def md_ranks($f):
  if $f.ranks == null then ""
  else "## Ranks\n\n"
    + "One row per rank; the operator is the one whose total time differs most from the median rank's.\n\n"
    + table(["Rank", "Steps", "Mean step", "Max step", "CPU busy", "GPU busy", "Computation", "Exposed comm", "Idle", "Operator off the median"];
        ["r", "r", "r", "r", "r", "r", "r", "r", "r", "l"];
        [$f.ranks[] | [(.rank | tostring), (.steps | count), (.mean_step | us), (.max_step | us),
          (.cpu_busy | us), (.gpu_busy | us), (.computation | us), (.exposed_comm | us), (.idle | us),
          (if .operator == null then ""
           else (.operator.name | clip(40)) + " " + (if .operator.diff >= 0 then "+" else "" end)
             + (.operator.diff | us) end)]])
    + (if $f.late_rank != null
       then $f.late_rank as $l
         | "\n**Straggler: rank \($l.rank)**, the one the others wait for: last at \($l.last_at) of \($l.instances) "
           + (if $l.names > 1 then "collective instances"
              else ($l.collective | clip(60) | md) + " calls" end)
           + ": the other ranks wait for it \($l.wait_per_step | us) a step (their median), \($l.share | pct) of their median step; its own mean step (\($l.own_step | us)) does not single it out."
           + (if $l.extra != null then " Its extra time is in " + ($l.extra.label | md) + ", "
              + ($l.extra.per_step | us) + " a step above the median of the others." else "" end) + "\n"
       elif $f.straggler == null
       then "\nNo straggler: no rank's mean step is \(straggler_ratio * 100 - 100 | dec(0)) % or more above the median rank's, and no rank keeps the others waiting at the collectives \(late_share * 100 | dec(0)) % of their step.\n"
       else $f.straggler as $s
         | "\n**Straggler: rank \($s.rank)**, mean step \($s.mean_step | us), "
           + ($s.ratio | dec(2)) + "× the median rank's (rank \($s.median_rank), \($s.median_step | us)). "
           + "Its extra \($s.extra_us | us) against that rank: computation "
           + ($s.extra.compute | us) + ", exposed communication " + ($s.extra.exposed_comm | us)
           + ", GPU idle " + ($s.extra.idle | us)
           + (if $s.operator != null then "; the operator most above the median is "
              + ($s.operator.name | clip(60) | md) + " (" + (if $s.operator.diff >= 0 then "+" else "" end)
              + ($s.operator.diff | us) + ")" else "" end) + ".\n" end)
    + (if $f.collectives == null then ""
       else "\nCollectives, matched across the ranks by their order in each process group: the rank last to arrive spends least in an instance, the others wait past it (skew: the longest wait), and its call is the transfer.\n\n"
         # The group, where the traces name one: a name called in four
         # groups is four rows.
         + (any($f.collectives[]; .group != null)) as $g
         | table(["Collective", "Kind"] + (if $g then ["Group"] else [] end)
               + ["Instances", "Ranks", "Median skew", "Median transfer", "Last most often", "Bus bandwidth"];
             ["l", "l"] + (if $g then ["l"] else [] end) + ["r", "r", "r", "r", "l", "r"];
             [$f.collectives[0:10][] | [(.name | split("(")[0] | clip(40)), (.collective // "")]
               + (if $g then [(.group // "" | clip(20))] else [] end)
               + [(.instances | count),
               (.ranks | count), (.median_skew | us), (.median_transfer | us),
               "rank \(.late_rank) (\(.late_at) of \(.instances))",
               (if .median_busbw != null then (.median_busbw | dec(1)) + " GB/s"
                elif (.busbw_beyond_gpu // 0) > 0 then "left out (see Data quality)"
                else "" end)]])
         + ([$f.collectives[].unmatched // 0] | add) as $u
         | if $u == 0 then ""
           else "\n\(($u | count)) call\(if $u > 1 then "s" else "" end) left unmatched: some ranks have more calls of a collective than others (their traces start or end at different collectives), so the order that matches them may be off.\n" end
       end)
    + "\n"
  end;

def md_summary($f):
  "## Resource summary\n\n"
  + table(["Resource", "Value"]; ["l", "r"];
      (if $f.memory != null then
        [["Reserved memory", ($f.memory.reserved | bytes)],
         ["Allocated memory", ($f.memory.allocated | bytes)],
         ["Active memory", ($f.memory.active | bytes)],
         ["Inactive memory (free in segments)", ($f.memory.inactive | bytes)]]
        + (if $f.memory.inactive_split_bytes != null then
            [["Split free blocks (non-releasable)", (($f.memory.inactive_split_bytes | bytes) + " (" + ($f.split_fragmentation | pct) + ")")],
             ["Whole free segments (releasable cache)", (($f.memory.free_segment_bytes | bytes) + " (" + ($f.releasable_share | pct) + ")")]]
          else [] end)
        + [["Fragmentation risk", (($f.split_fragmentation // $f.memory.fragmentation | pct) + " (" + $f.memory.fragmentation_risk + ")")],
         ["Segments", ($f.memory.segments | count)]]
       else [] end)
      + (if $f.churn != null then
          [["Allocator peak (replayed)", peak_text($f.churn)]]
        else [] end)
      + (if $f.memory_profile != null then
          [["Peak allocated (profiler)", ($f.memory_profile.peak_allocated | bytes)],
           ["Peak reserved (profiler)", ($f.memory_profile.peak_reserved | bytes)]]
        else [] end)
      + (if $f.cpu != null then
          [["CPU trace window", ($f.cpu.window | us)],
           ["CPU self time" + summed_label($f), ($f.cpu.self_total | us)],
           ["CPU events" + summed_label($f), ($f.cpu.events | count)],
           ["Traces", ($f.cpu.traces | count)]]
          + (if $f.cpu.ranks != null then [["Ranks", ($f.cpu.ranks | length | count)]] else [] end)
        else [] end)
      + (if $f.gpu != null then
          [["GPU events" + rank_label($f), ($f.gpu.events | count)],
           ["GPU busy" + rank_label($f), (($f.gpu_busy_us | us) + " of " + ($f.gpu_window_us | us) + ", " + $f.gpu_window_name + " (" + ($f.gpu_util | pct) + ")")]]
        else [] end)
      + (if $f.steps != null then
          [["Profiled steps", ($f.steps.steps | count)],
           ["Mean step time" + (if $f.steps.wall == true then " (slowest rank per step)"
              else rank_label($f) end), ($f.steps.mean | us)]]
        else [] end)
      + (throughput($f) as $t | if $t == null then []
         else [["Throughput (per rank)", ($t.samples_per_s | dec(1)) + " samples/s"
           + (if $t.tokens_per_s != null then ", " + ($t.tokens_per_s | dec(0)) + " tokens/s" else "" end)]] end))
  + chart_links("Resource summary");

def md_context($f):
  if $f.context == null then ""
  else "## Run context\n\n"
    + table(["Item", "Value"]; ["l", "l"];
        [("model", "batch_size", "seq_len", "precision", "parallelism", "world_size", "gpu", "objective", "phase") as $k
         | select($f.context[$k] != null) | [$k, ($f.context[$k] | tostring)]]
        + [($f.context.extra // {}) | to_entries[] | [.key, (.value | if type == "string" then . else tojson end)]])
    + (if $f.context.phase != null then "\nOperator tables and findings focus on the **\($f.context.phase | tostring | clip(max_cell) | md)** phase.\n" else "" end)
    + (if $f.context.objective != null then "\nObjective: **\($f.context.objective | tostring | clip(max_cell) | md)**"
       + (if $f.context.objective == "memory" then ": memory findings come first.\n" else ": time findings come first.\n" end)
       else "" end)
    + "\n"
  end;

def md_quality($f):
  if ($f.warnings | length) == 0 then ""
  else "## Data quality\n\n"
    + "Some inputs are cut short, disagree with themselves in places or could not be read; the analysis went on with what there is.\n\n"
    + ([$f.warnings[0:10][] | "- " + (if .file == null then "" else (.file | md) + (if .line != null then ":\(.line):\(.col)" else "" end) + ": " end) + (.message | md)] | join("\n"))
    + (if ($f.warnings | length) > 10 then "\n- … and more (see the warning records)" else "" end)
    + "\n\n"
  end;

# Sections of one part, each [heading, body]: those whose body is an empty
# table fold into one line after the rest, so that a report of a snapshot
# alone does not run through a page of "None.".
def sections:
  ([.[] | select(.[1] != no_rows)] | map("### " + .[0] + "\n\n" + .[1])
    | join("\n"))
  + ([.[] | select(.[1] == no_rows) | .[0]]
     | if length == 0 then ""
       else "\n_Nothing in these inputs for " + join(", ") + "._\n" end);

# The ledger's window, for people.
def ledger_window($l):
  if $l.window == "step" then
    (if $l.windows == 1 then "the step" else "the \($l.windows) steps" end)
  elif $l.window == "iteration" then
    (if $l.windows == 1 then "the iteration" else "the \($l.windows) iterations" end)
    + " (no ProfilerStep: inferred from the " + ($l.inferred_from | md) + " calls that start each)"
  else "the traced window" end;

# Where the time goes: the primary rank's ledger, every slice of it.
def md_ledger($f):
  if $f.ledger == null then no_rows
  else $f.ledger as $l
    | "The wall time of " + ledger_window($l) + ", " + ($l.wall | us)
      + ", cut into slices that add up to it: the GPU busy by kernel class"
      + (if $l.slices | any(.slice == "gpu_graph") then " (inside graph replays apart)" else "" end)
      + ", and while no GPU is busy, what the host was doing"
      + (if $l.gpu_busy != null
         then " (GPU busy " + (($l.gpu_util / 100) | pct) + " of it)" else "" end)
      + ".\n\n"
      + table(["Slice", "Time", "Share", "Spent most by"]; ["l", "r", "r", "l"];
          [$l.slices[] | [(.slice | slice_label), (.time | us),
            ((.pct // null) | if . == null then "n/a" else dec(1) + " %" end),
            ((.top // [])[0] | if . == null then ""
             else ([.frame, .op, .call] | map(select(. != null) | clip(48)) | join(" → "))
               + " (" + (.time | us) + ")" end)]])
      + (if $f.python_under != null
         then "\nThe Python slice runs under " + ($f.python_under.frame | md) + " for "
           + ($f.python_under.time | us) + ".\n" else "" end)
      + (if ($l.phases // []) | any(.phase != "steady")
         then "\nWindows by phase: " + ([$l.phases[] | .phase + " " + (.windows | tostring)
           + " (" + (.wall | us) + ")"] | join(", "))
           + "; capture and compile windows are not the run's steady state.\n" else "" end)
      + (if $l.periodic != null
         then "\nOne step in every \($l.periodic.every), from step \($l.periodic.first) on, is longer: "
           + "\($l.periodic.windows) steps add " + ($l.periodic.extra | us)
           + " above the median step (" + ($l.periodic.median | us) + ").\n" else "" end)
      + chart_links("Where the time goes")
  end;

def md_bottlenecks($f):
  "## Top bottlenecks\n\n"
  + ([["Where the time goes" + rank_label($f), md_ledger($f)],
     ["Top CPU operators" + (if $f.phase != null then " (" + $f.phase + " phase)" else "" end) + rank_label($f),
      table(["Operator", "Family", "Calls", "Total", "Self", "Self %"];
        ["l", "l", "r", "r", "r", "r"];
        [$f.op_rows[0:10][] | [(.name | clip(60)), .family, (.count | count),
          (.total | us), (.self | us), ((.self_pct // null) | if . == null then "n/a" else dec(1) + " %" end)]])],
     ["Top threads" + rank_label($f),
      table(["Thread", "Operators", "Busy"]; ["l", "r", "r"];
        [threads($f)[] | [(.name // "\(.pid)/\(.tid)"), (.count | count), (.busy | us)]])],
     ["Largest segments",
      table(["Device", "Address", "Size", "Allocated", "Free", "Largest free", "Pool", "Top site"];
        ["r", "l", "r", "r", "r", "r", "l", "l"];
        [recs("segment")[0:10][] | [(.device | tostring), (.address | hex),
          (.total_size | bytes), (.allocated | bytes), (.free | bytes),
          (.largest_free | bytes), .pool, ((.top_sites // [])[0].site // "" | clip(50))]])],
     ["Allocator actions",
      table(["Device", "Action", "Count"]; ["r", "l", "r"];
        [recs("churn")[] | .device as $d | .actions | to_entries[]
         | select(.value > 0) | [($d | tostring), .key, (.value | count)]])],
     ["Top GPU kernels" + rank_label($f),
      table(["Kernel", "Family", "Calls", "Total", "Mean", "Share"];
        ["l", "l", "r", "r", "r", "r"];
        [$f.kernels[0:10][] | [(.name | clip(60)), .family, (.count | count),
          (.total | us), (.mean | us), ((.pct // null) | if . == null then "n/a" else dec(1) + " %" end)]])],
     ["Slowest steps" + rank_label($f),
      table(["Step", "Duration", "CPU duration"]; ["l", "r", "r"];
        [slowest_steps($f)[] | [.name, (.dur | us), (.cpu_dur | us)]])
      + chart_links("Slowest steps")]]
    | sections);

# FLOPs from the trace's shapes: only where op-rank costed calls, so that
# reports of traces without record_shapes keep their bytes.
def md_compute($f):
  $f.compute as $c
  | if $c == null then ""
    else "## Compute efficiency" + rank_label($f) + "\n\n"
      + "FLOPs and bytes from the operators' input shapes (record_shapes), "
      + (if $c.peak_tflops != null
         then "against the dense " + ($c.precision // "") + " peak of " + ($c.gpu | md)
           + ", " + ($c.peak_tflops | dec(1)) + " TFLOPS"
           + (if $c.device_inferred != null
              then " (the trace names no GPU: " + ($c.device_inferred | md)
                + ", inferred from its compute capability, SM count and memory)"
              else "" end)
         elif $c.device_name != null then "on " + ($c.device_name | md) + ", whose peaks are not known"
         elif $c.device_inferred != null then "on a GPU the trace does not name, inferred to be "
           + ($c.device_inferred | md) + ", whose peaks are not known (--set gpu= names it)"
         else "on a GPU the trace does not name (--set gpu= names it)" end)
      + ". The costed operators did " + ($c.flops / 1e9 | dec(1)) + " GFLOP in "
      + ($c.gpu_us | us) + " of GPU time, "
      + ($c.tflops | if . == null then "n/a" else dec(1) end) + " TFLOPS"
      + (if $c.mfu != null
         then "; MFU over the costed operators only: " + ($c.mfu | pct) + " per step (mean of "
           + ($c.steps | count) + ")"
         else "" end)
      + (if ($c.uncosted // 0) > 0 then "; " + ($c.uncosted | count) + " calls could not be costed from their shapes" else "" end)
      + ".\n\n"
      + table(["Operator", "M×N×K or input", "Precision", "Calls", "GPU time", "TFLOPS", "% of peak", "FLOPs/byte", "Bound"];
          ["l", "l", "l", "r", "r", "r", "r", "r", "l"];
          [$f.shapes[0:10][] | [(.name | clip(50)),
            (if .model == "gemm" then gemm_mnk | "\(.m)×\(.n)×\(.k)" + (if .b > 1 then " ×\(.b)" else "" end)
             else .dims[0] | map(tostring) | join("×") end),
            (.precision // "n/a"), (.count | count), (.gpu_us | us),
            (.tflops | if . == null then "n/a" else dec(1) end),
            (.of_peak | pct), (.intensity | if . == null then "n/a" else dec(1) end), .bound]])
      + ([$f.shapes[0:10][] | .replay // empty] as $cmds
         | if ($cmds | length) == 0 then ""
           else "\nFar from their peak (under " + (far_from_peak | pct)
             + "), each of these replays alone from the snippet its command makes, to be"
             + " profiled under Nsight Systems and compared with this trace by replay-check"
             + (if (inputs | map(select(.role == "trace")) | length) == 1 then ""
                else " (TRACE: the trace of rank " + ($f.rank // 0 | tostring) + ")" end)
             + ":\n\n```sh\n" + ($cmds | map(. + "\n") | join("")) + "```\n" end)
      + chart_links("Compute efficiency")
    end;

# torch.compile's regions: only where op-rank found them.
def md_compiled($f):
  $f.compile as $c
  | if $c == null then ""
    else "## Compiled regions" + rank_label($f) + "\n\n"
      + "\($c.region_calls | count) call\(if $c.region_calls == 1 then "" else "s" end) of "
      + "\($c.frames | count) compiled frame\(if $c.frames == 1 then "" else "s" end) ("
      + ($c.region_time | us) + " on the host); "
      + (if $c.recompiled_frames > 0
         then "\($c.recompiled_frames | count) frame\(if $c.recompiled_frames == 1 then "" else "s" end) recompiled"
         else "no recompilation" end)
      + ", " + (if $c.graph_breaks > 0 then "\($c.graph_breaks | count) graph break\(if $c.graph_breaks == 1 then "" else "s" end)"
                else "no graph break" end)
      + "; guards " + ($c.guard_time | us) + " in \($c.guard_calls | count) call\(if $c.guard_calls == 1 then "" else "s" end)"
      + "; compile spans in the windows " + ($c.compile_time | us)
      + (if $c.inductor_share != null
         then "; Inductor's Triton kernels " + ($c.inductor_gpu_time | us) + ", "
           + ($c.inductor_share | pct) + " of the GPU's kernel time" else "" end)
      + ".\n\n"
      + table(["Compile id", "Calls", "Time", "Longest"]; ["l", "r", "r", "r"];
          [$c.regions[] | [.compile_id, (.count | count), (.time | us), (.max | us)]])
    end;

# CUDA or HIP graph replays: only where op-rank found graph launches.
def md_graphs($f):
  $f.graph as $g
  | if $g == null then ""
    else "## CUDA graphs" + rank_label($f) + "\n\n"
      + "\($g.launches | count) graph launch\(if $g.launches == 1 then "" else "es" end)"
      + (if $g.call != null then " (" + ($g.call | md)
           + (if $g.frame != null then " from " + ($g.frame | md) else "" end) + ")" else "" end)
      + " ran \($g.kernels | count) kernels under their launches' correlation ids: "
      + ($g.gpu_time | us) + " of GPU time, "
      + ($g.coverage | if . == null then "n/a" else pct end) + " of the GPU's busy time"
      + (if ($g.coverage // 0) > 0.5
         then ". No operator launched them: the operator tables and FLOPs of this report cover only the eager "
           + ((1 - $g.coverage) | pct) + "; a capture trace, or nsys --cuda-graph-trace=node, shows inside the graphs"
         else "" end)
      + ".\n\n"
      + table(["Measure", "Value"]; ["l", "r"];
          [["Launches (with kernels)", "\($g.launches | count) (\($g.launches_with_kernels | count))"],
           ["Kernels per launch", ($g.kernels_per_launch | if . == null then "n/a" else dec(1) end)],
           ["GPU time inside replays", ($g.gpu_time | us)],
           ["Share of GPU busy", ($g.coverage | if . == null then "n/a" else pct end)],
           ["Kernel time, summed", ($g.kernel_time | us)],
           ["Launch to first kernel, mean", ($g.launch_delay.mean | us)],
           ["Launch to first kernel, max", ($g.launch_delay.max | us)],
           ["Host time per launch, mean", ($g.host_per_launch.mean | us)],
           ["Queued, nothing else traced", ($g.queued | us)]])
    end;

# The critical path of each step: only where crit-path's records came in
# (crit-path -s beside the other records) and a graph holds GPU work or
# something but host work is on a path (of host work alone the ledger says
# all).  The ledger says where a step's time goes; the path says which of
# it, made shorter, makes the step shorter.
def critical_windows($f):
  recs("critical_path")
  | map(select(.length_us != null and ($f.rank == null or .rank == $f.rank)))
  | if any(.[]; (.edge_types | gpu_edges)
        or (.by_class_us | to_entries | any(.key != "cpu_bound" and .value > 0)))
    then . else [] end;

def bound_classes:
  .share | to_entries | map(select(.value > 0)) | sort_by(-.value) | .[0:3]
  | map((.key | gsub("_"; " ")) + " " + (.value | pct)) | join(", ");

def md_critical($f):
  critical_windows($f) as $w
  | if ($w | length) == 0 then ""
    else "## Critical path" + rank_label($f) + "\n\n"
      + "The longest chain of dependent work through each step (HTA's dependency graph of operators, "
      + "runtime calls and GPU work; `crit-path`): work off it overlaps something longer, "
      + "so only what is on it shortens the step.\n\n"
      + table(["Window", "Length", "Bound by", "Top event on the path"]; ["l", "r", "l", "l"];
          [$w[0:20][] | [(.window | if . == "" then "whole trace" else . end),
             (.length_us | us), bound_classes,
             (.top[0] | if . == null then "n/a"
              else (.name | clip(60)) + " (" + (.class | gsub("_"; " ")) + ", "
                + (.share | pct)
                + (if .frame != null then ", from " + (.frame | clip(60)) else "" end) + ")" end)]])
      + (if ($w | length) > 20 then "\n\(($w | length) - 20) more windows in the JSON report.\n" else "" end)
      + chart_links("Critical path")
    end;

# A serving engine's steps: only where op-rank read its step labels.
def md_serving($f):
  $f.serving as $s
  | if $s == null then ""
    else def cls($k): (.kernel_time // {})[$k] // 0;
      "## Serving steps" + rank_label($f) + "\n\n"
      + "\($s.summary.steps | count) step\(if $s.summary.steps == 1 then "" else "s" end) of the serving engine"
      + (if $s.summary.capture_steps > 0
         then " and \($s.summary.capture_steps | count) capture step\(if $s.summary.capture_steps == 1 then "" else "s" end), in no statistics"
         else "" end)
      + ", each timed on the GPU: from the previous step's last GPU work (a trace's first step: its own first) "
      + "to its own last, not by the host's label.\n\n"
      + table(["Phase", "Steps", "Mean", "p50", "p90", "Mean batch", "Tokens/s", "GEMM", "Attention", "Other GPU"];
          ["l", "r", "r", "r", "r", "r", "r", "r", "r", "r"];
          [$s.phases[] | [.phase, (.steps | count), (.mean | us), (.p50 | us), (.p90 | us),
            (.mean_batch | if . == null then "n/a" else dec(1) end),
            (.tokens_per_s | if . == null then "n/a" else dec(0) end),
            (cls("gpu_gemm") | us), (cls("gpu_attention") | us),
            ([.kernel_time // {} | to_entries[] | select(.key != "gpu_gemm" and .key != "gpu_attention") | .value]
             | add // 0 | us)]])
      + (if $s.summary.tpot != null
         then "\nTime per output token, the decode step's time on the GPU: " + ($s.summary.tpot | us)
           + ([$s.phases[] | select(.phase == "decode") | .by_batch // [] | .[]]
              | if length > 1 then "; by batch size: "
                  + (map("\(.batch) (" + (.mean | us) + ", \(.steps | count) step\(if .steps == 1 then "" else "s" end))")
                     | join(", "))
                elif length == 1 then " at batch size \(.[0].batch)" else "" end)
           + ".\n" else "" end)
      + ([$s.phases[] | select(.phase == "mixed" and .interference != null)]
         | if length == 0 then ""
           else "\nPrefill interference: a mixed step takes " + (.[0].interference | us)
             + " more than the decode steps of its batch.\n" end)
      + (if $s.summary.ttft_lower_bound != null
         then "\nTime to first token: at least " + ($s.summary.ttft_lower_bound | us)
           + " for half the requests whose prefill these steps carry (from the step's start to its last GPU work;"
           + " queueing before the step is not in a trace, so this is a lower bound).\n"
         else "" end)
      + ($f.serving_attention | if . == null or (.phases | length) == 0 then ""
         else "\nAttention FLOPs from the labels' sums (TraceLens's inference formulas; the context's "
           + "\(.heads) heads of \(.head_dim) over \(.layers) layers): "
           + ([.phases[] | .phase + " " + (.flops / 1e9 | dec(1)) + " GFLOP in \(.steps | count) step"
               + (if .steps == 1 then "" else "s" end) + ", " + (.tflops | dec(1)) + " TFLOPS"
               + (if .of_peak != null then " (" + (.of_peak | pct) + " of the dense bf16 peak)" else "" end)]
              | join("; ")) + ".\n" end)
      + (if $s.step_count > ($s.steps | length)
         then "\n" + ($s.step_count | count) + " steps in all; op-rank's serve_step records list each.\n"
         else "" end)
    end;

def md_diagnosis($f):
  "## Diagnosis\n\n"
  + ([["Fragmentation risk",
      (if $f.memory == null then no_rows
       elif $f.memory.inactive_split_bytes == null then
         "Risk **\($f.memory.fragmentation_risk)**: "
         + ($f.memory.fragmentation | pct) + " of reserved memory ("
         + ($f.memory.inactive | bytes) + " of " + ($f.memory.reserved | bytes)
         + ") is free inside segments; the largest free block is "
         + ($f.memory.largest_free | bytes) + ".\n"
       else "Risk **\($f.memory.fragmentation_risk)**, taken on split fragmentation: "
         + ($f.memory.inactive_split_bytes | bytes) + " (" + ($f.split_fragmentation | pct)
         + " of " + ($f.memory.reserved | bytes) + " reserved) is free but split off inside segments "
         + "that still hold live blocks, which the allocator can neither release nor use for larger requests. "
         + ($f.memory.free_segment_bytes | bytes) + " (" + ($f.releasable_share | pct)
         + ") is whole free segments: releasable cache, not fragmentation. "
         + "In all " + ($f.memory.fragmentation | pct) + " of reserved memory is free; the largest free block is "
         + ($f.memory.largest_free | bytes) + ".\n" end)
      + chart_links("Fragmentation risk")],
     ["Allocator churn",
      (if $f.churn == null then
         (if $f.memory == null then no_rows
          else "_No allocator trace in the snapshot._\n" end)
       else table(["Measure", "Value"]; ["l", "r"];
         [["Churn score (0-100)", ($f.churn.churn | count)],
          ["Allocations", ($f.churn.actions.alloc | count)],
          ["Device calls per 1000 allocations", ($f.churn.device_calls_per_1000_allocs | dec(1))],
          ["Short-lived share", ($f.churn.short_lived_share | pct)],
          ["Turnover (bytes allocated / peak)", ($f.churn.turnover | dec(2))],
          ["segment_free bursts", ($f.churn.segment_free_bursts | count)],
          ["Replayed peak", peak_text($f.churn)],
          ["Window complete", ($f.churn.window_complete | tostring)]]) end)
      + chart_links("Allocator churn")],
     (if $f.churn == null or (sites_at_peak($f.churn) | length) == 0 then empty
      else ["Live at the peak",
        (if $f.churn.peak_lower_bound == true
         then "The allocator's record does not cover the whole run, so the peak is a lower bound.\n\n"
         else "" end)
        + table(["Size", "Allocated", "Site"]; ["r", "l", "l"];
            [sites_at_peak($f.churn)[0:10][] | [(.size | bytes),
              (if .origin == "before_window" then "before the window" else "in the window" end),
              ((.site // "unknown") | clip(80))]])] end),
     (if $f.growth == null then empty
      else ["Memory growth",
        "Blocks that the allocator's record shows allocated all through the window and never freed, "
        + "by site; an iteration is counted by the growing sites' own allocations"
        + " (\($f.growth.iterations | count)).\n\n"
        + table(["Site", "Blocks", "Held", "Per iteration"]; ["l", "r", "r", "r"];
            [recs("memory_growth")[] | .sites[] | [(.site | clip(80)), (.blocks | count),
              (.bytes | bytes), (.bytes_per_iteration | bytes)]])] end),
     (if ($f.memory_sites.sites // []) | length == 0 then empty
      else ["Live memory by allocation site",
        table(["Site", "Active", "Blocks"]; ["l", "r", "r"];
          [$f.memory_sites.sites[0:10][] | [(.site | clip(80)), (.bytes | bytes), (.blocks | count)]])
        + (if $f.memory_sites.no_site_bytes > 0
           then "\n\($f.memory_sites.no_site_bytes | bytes) more is held by blocks recorded without a stack.\n"
           else "" end)] end),
     ["Operator families" + rank_label($f),
      table(["Family", "Operators", "Self", "Self %", "GPU"]; ["l", "r", "r", "r", "r"];
        [family_list($f)[] | [.family, (.count | count), (.self | us),
          (.self_pct | dec(1) + " %"), (.gpu_self | us)]])
      + (if $f.cpu.dominant_family != null then "\nDominant family: **\($f.cpu.dominant_family | md)**.\n" else "" end)
      + chart_links("Operator families")],
     ["Phases" + rank_label($f),
      table(["Phase", "CPU self", "GPU"]; ["l", "r", "r"];
        [phase_list($f)[] | [.phase, (.self | us), (.gpu | us)]])],
     ["GPU timeline" + rank_label($f),
      table(["Device", "Window", "Busy", "Computation", "Exposed comm", "Exposed memcpy", "Idle"];
        ["r", "r", "r", "r", "r", "r", "r"];
        [timelines($f)[] | [(.device | tostring), (.window | us),
          ((.busy | us) + " (" + (share(.busy; .window) | pct) + ")"),
          (.computation | us), (.exposed_comm | us), (.exposed_memcpy | us), (.idle | us)]])
      + chart_links("GPU timeline")]]
    | sections);

def md_actions($f):
  "## Prioritized actions\n\n"
  + (if (findings | length) == 0 then "_No rule fired._\n"
     else [findings[] |
       "### \(.place). \(.rule | md) (\(.area | md))" + (if .hypothesis then " — hypothesis" else "" end) + "\n\n"
       + "- **Observation:** \(.observation | md)\n"
       + "- **Hypothesis:** \(.cause | md)\n"
       + "- **Action:** \(.action | md)\n"
       + "- **Expected impact:** \(impact_text($f)) (confidence \(.confidence | md))\n"
       + "- **Validation metric:** \(.metric | md)\n"
       + (if .capture != null then "\nCapture it with:\n\n```python\n\(.capture)\n```\n" else "" end)]
     | join("\n") end);

def md_inputs:
  "## Inputs\n\n"
  + table(["Path", "Role", "Size", "SHA-256"]; ["l", "l", "r", "l"];
      [inputs[] | [.path, (.role // ""), (.size | bytes), .sha256]])
  + "\nReport by mrp \($version).\n";

# A rule's text as written, or its cases: the expression that picks one,
# then each case's text.
def rule_text:
  if type == "object"
  then "by `\(.case)`:" + ([.cases | to_entries[] | "\n  - `\(.key)`: \(.value)"] | join(""))
  else . end;

def md_rules:
  [rules[] |
    "### `\(.id)`\n\n"
    + "Area **\(.area)**, confidence **\(.confidence)**"
    + (if .confidence == "low" then " (reported as a hypothesis)" else "" end)
    + "; defined in `\(.file)`, line \(.line).\n\n"
    + (if (.needs | length) > 0 then "- **Needs:** " + (.needs | map("`" + . + "`") | join(", ")) + "\n" else "" end)
    + "- **Fires when:** `\(.when)`\n"
    + (if .blocking then "- **Blocking:** the run cannot go on; ranked first\n" else "" end)
    + "- **Impact:** `\(.impact)`"
    + (if .basis != null then ", a fraction of **\(.basis)**" else "" end)
    + (if .pool != null then ", shared with the other rules of pool `\(.pool)`" else "" end)
    + "\n"
    + (if .recovers != null then "- **Recovers:** \(.recovers)\n" else "" end)
    + (if (.evidence | length) > 0
       then "- **Evidence:** " + (.evidence | to_entries | map("`\(.key)` = `\(.value)`") | join(", ")) + "\n"
       else "" end)
    + "- **Observation:** \(.observation | rule_text)\n"
    + "- **Hypothesis:** \(.cause | rule_text)\n"
    + "- **Action:** \(.action | rule_text)\n"
    + "- **Validation metric:** \(.metric | rule_text)\n"
    + (if .measure != null then "- **Measure:** `\(.measure)`, better \(.better)\n" else "" end)
    + (if .capture != null then "\n```python\n\(.capture | rule_text)\n```\n" else "" end)]
  | join("\n");

# The JSON report.

def nokind: del(.kind);

def memory_compat($f):
  if $f.memory == null then null
  else {
    total_reserved_bytes: $f.memory.reserved,
    total_allocated_bytes: $f.memory.allocated,
    total_active_bytes: $f.memory.active,
    total_inactive_bytes: $f.memory.inactive,
    fragmentation_ratio: $f.memory.fragmentation,
    fragmentation_risk: $f.memory.fragmentation_risk,
    num_segments: $f.memory.segments,
    top_segments: [recs("segment")[0:10][] | {device, address, total_size,
      allocated_size: .allocated, active_size: .active, free_size: .free,
      largest_free, pool, stream}],
    alloc_retries: $f.memory.num_alloc_retries,
    num_ooms: $f.memory.num_ooms,
    allocator_settings: $f.memory.allocator_settings
  } end;

def cpu_compat($f):
  if $f.cpu == null then null
  else {
    event_count: $f.cpu.events,
    trace_start_us: $f.cpu.start,
    trace_end_us: $f.cpu["end"],
    trace_window_us: $f.cpu.window,
    top_ops: [$f.ops[0:10][] | {name, total_us: .total, count, avg_us: .mean}],
    top_threads: [threads($f)[] | {pid, tid, name, busy_us: .busy, count}],
    family_totals: ($f.cpu.families // {}),
    dominant_family: $f.cpu.dominant_family
  } end;

def json_report:
  facts as $f
  | if (.counts | length) == 0 then null
    else {
      schema_version: 1,
      version: $version,
      context: ($f.context | if . == null then null else nokind end),
      scope: {rank: $f.rank, ranks: $f.nranks,
              summed: (if $f.ranks != null then ["summary.cpu"] else [] end),
              steps: (if $f.steps.wall == true then "slowest rank per step"
                      elif $f.steps != null then "rank" else null end)},
      ranks: $f.ranks,
      straggler: $f.straggler,
      late_rank: $f.late_rank,
      collectives: $f.collectives,
      data_quality: [$f.warnings[] | nokind],
      summary: {
        memory: (if $f.memory == null then null
          else $f.memory | {reserved, allocated, active, inactive, fragmentation,
            fragmentation_risk, segments, inactive_split_bytes, free_segment_bytes,
            split_fragmentation, releasable_share} end),
        peak: (if $f.churn == null then null else $f.churn.peak end),
        peak_bytes: (if $f.churn == null then null else $f.churn.peak end),
        peak_lower_bound: (if $f.churn == null then null else $f.churn.peak_lower_bound // null end),
        live_at_peak: sites_at_peak($f.churn)[0:10],
        throughput: throughput($f),
        memory_profile: ($f.memory_profile | if . == null then null else nokind end),
        cpu: (if $f.cpu == null then null
          else $f.cpu | {traces, events, start, "end": .["end"], window, self_total} end),
        gpu: $f.gpu,
        gpu_utilization: $f.gpu_util,
        steps: ($f.steps | if . == null then null else nokind end)
      },
      bottlenecks: {
        top_ops: [$f.op_rows[0:10][] | nokind],
        top_threads: [threads($f)[] | nokind],
        largest_segments: [recs("segment")[0:10][] | nokind],
        allocator_actions: [recs("churn")[] | {device, actions}],
        top_kernels: [$f.kernels[0:10][] | nokind],
        slowest_steps: [slowest_steps($f)[] | nokind]
      },
      diagnosis: {
        fragmentation: (if $f.memory == null then null
          else $f.memory | {fragmentation, fragmentation_risk, inactive, reserved,
            largest_free, external_fragmentation, inactive_split_bytes,
            free_segment_bytes, split_fragmentation, releasable_share} end),
        churn: ($f.churn | if . == null then null else nokind end),
        families: [family_list($f)[] | nokind],
        dominant_family: $f.cpu.dominant_family,
        phases: [phase_list($f)[] | nokind],
        gpu_timeline: [timelines($f)[] | nokind]
      },
      actions: [findings[] | nokind],
      inputs: [inputs[] | nokind],
      memory: memory_compat($f),
      cpu: cpu_compat($f),
      operators: (if $f.cpu == null then null
        else [$f.op_rows[] | {name, count, self, total}] end),
      kernel_times: (if $f.gpu == null then null
        else [$f.kernels[] | {name, count, total}] end),
      measures: (recs("measure") | map({key: .rule, value: {value, better}}) | from_entries)
    }
    # Charts, memory sites and growth only where their records came in,
    # so that reports made without them keep their bytes.
    + (recs("chart") | if length == 0 then {}
       else {charts: map({chart, file, title, section})} end)
    + (if $f.memory_sites == null then {} else {memory_sites: $f.memory_sites} end)
    + (recs("memory_growth") | if length == 0 then {}
       else {memory_growth: map(nokind)} end)
    + (if $f.ledger == null then {}
       else {time_ledger: ($f.ledger | del(.kind, .by))} end)
    + (if $f.compute == null then {}
       else {compute: {summary: ($f.compute | nokind),
                       top_shapes: [$f.shapes[0:10][] | nokind]}} end)
    + (if $f.compile == null then {} else {compiled: ($f.compile | nokind)} end)
    + (if $f.graph == null then {} else {cuda_graphs: ($f.graph | nokind)} end)
    + (if $f.serving == null then {}
       else {serving: ($f.serving | {summary, phases})} end)
    + (critical_windows($f) | if length == 0 then {}
       else {critical_path: map(nokind)} end) end;

# Before and after: with a "baseline" record (analyze-profile --baseline),
# the comparison of that report with this one, built from the same facts.
def baseline: recs("baseline") | .[0].report // null;

def baseline_diff:
  baseline as $b
  | if $b == null then null else diff_record($b; json_report) end;

def md_baseline:
  baseline_diff as $d
  | if $d == null then ""
    else "## Before and after\n\n"
      + "Against the baseline report (mrp \($d.before_version | tostring | md)); its actions, "
      + "checked by their validation metrics on this run.\n\n"
      + md_diff($d) + "\n" end;

def markdown:
  facts as $f
  | if (.counts | length) == 0 then ""
    elif (.counts | keys) == ["rule"] then
      "# mrp rubric reference\n\n"
      + "Generated from the rubric files by `rubric-apply -l | report-md`; do not edit.\n"
      + "Each rule reads the facts that `facts.jq` derives from the records of the mrp tools; "
      + "`{{ … }}` in a text is a jq expression over those facts.\n\n"
      + "Each impact is the fraction of its basis (step time, or the traced window when the trace "
      + "has no steps; GPU time; reserved or peak memory) that the action could plausibly recover: "
      + "the part above the target its validation metric names.  Rules are attributed in the order "
      + "below, specific causes first: a rule gets at most what the rules before it left of its "
      + "basis, and rules of one pool (the same time or memory explained in different ways) share "
      + "the largest claim among them, so a report's fractions of one basis add up to at most 1.  "
      + "A finding left with nothing, or whose estimate is 0, is not reported.\n\n"
      + "Ranking: blocking findings (an OOM) first; then the objective's resource (time for "
      + "throughput and latency, the default; memory for memory), then the other, each by "
      + "fraction; then causes whose cost these artifacts cannot measure; then missing artifacts.  "
      + "With a phase in focus, findings about "
      + "other phases come last.  Low-confidence findings are marked hypotheses.\n\n"
      + "## Rules\n\n" + md_rules
    else
      "# Profile report\n\n"
      + md_context($f) + md_summary($f) + "\n" + md_quality($f) + md_ranks($f) + md_bottlenecks($f)
      + (md_compute($f) | if . == "" then "" else "\n" + . end)
      + (md_compiled($f) | if . == "" then "" else "\n" + . end)
      + (md_graphs($f) | if . == "" then "" else "\n" + . end)
      + (md_serving($f) | if . == "" then "" else "\n" + . end)
      + (md_critical($f) | if . == "" then "" else "\n" + . end)
      + "\n" + md_diagnosis($f) + "\n" + md_actions($f) + "\n" + md_baseline + md_inputs
      + (if (rules | length) > 0 then "\n## Rubric reference\n\n" + md_rules else "" end)
    end;

def report($format):
  if $format == "json" then
    (if baseline == null then null else baseline_diff end) as $d
    | json_report | if . != null and $d != null then .baseline_diff = $d else . end
  else markdown end;
