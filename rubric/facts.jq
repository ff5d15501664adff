# The facts that the rules (*.yaml) and the report (report.jq) read.
#
# Input: the records gathered by rubric-apply and report-md,
#   {"records": {kind: [record, ...]}, "counts": {kind: n}}
# with, of each kind, rank and class, the first 64 records kept.  Of
# several ranks, op-rank writes the detail of the primary (slowest) rank
# only, and of every rank a rank_summary record.
# Output of "facts": one object; a member is null when the records it
# comes from are missing, so that rules which need it do not fire.
# The thresholds are thresholds.tsv's, read as $th and their names; the
# comments here say the values it ships with.

def recs($k): .records[$k] // [];

# A share in [0, 1]; null when the denominator is missing or zero.
def share($part; $whole):
  if $part == null or $whole == null or $whole == 0 then null
  else [[$part / $whole, 1] | min, 0] | max end;

# The rank whose records stand for the run: the slowest across ranks, or
# the only one (null when the trace has no rank).
def primary_rank:
  (recs("cpu_summary") | map(select(has("ranks"))) | .[0].slowest_rank)
  // (recs("cpu_summary") | .[0].rank);

def of_rank($r): map(select(.rank == $r));

def gpu_sum:
  if length == 0 then null
  else reduce .[] as $g ({devices: 0};
    .devices += 1
    | reduce ("events", "window", "busy", "idle", "computation",
        "exposed_comm", "exposed_memcpy", "comm", "memcpy") as $k
        (.; .[$k] += ($g[$k] // 0)))
  end;

# GEMM precision from op-rank's gemm_precision records (kernel names, see
# kernel-precision.tsv): the share of GEMM and convolution GPU time in each.
def precision_shares($r):
  recs("gemm_precision") | of_rank($r)
  | if length == 0 then null
    else map({key: .precision, value: .share}) | from_entries end;

def reduced_precisions: ["bf16", "fp16", "fp8", "fp4", "int8"];

# Step statistics across ranks (op-rank's step_stats with "wall"): each
# step counts at its slowest rank, the step's wall time.
def wall_steps:
  recs("step_stats") | map(select(.wall == true)) | .[0]
  | if . == null then null
    else {steps, total, mean, min, max, std, median, above_median,
          slowest_step, wall: true} end;

# One row per rank (op-rank's rank_summary records): its steps, busy times
# and the operator whose total time differs most from the median rank's.
def rank_rows:
  recs("rank_summary") | map(select(.rank != null)) | unique_by(.rank)
  | map({rank, steps: (.steps // 0), mean_step, max_step, cpu_busy,
         gpu_busy, computation, exposed_comm, idle, operator,
         slower_operator, collective});

# A rank slower than the median rank by straggler_ratio or more, with
# where its extra time goes against that median rank.
def straggler_ratio: $th.straggler_ratio_min;
def straggler($rows):
  ($rows | map(select(.mean_step != null)) | sort_by(.mean_step)) as $s
  | if ($s | length) < 2 then null
    else $s[(($s | length) - 1) / 2 | floor] as $m | $s[-1] as $x
      | if $m.mean_step <= 0 or $x.mean_step / $m.mean_step < straggler_ratio then null
        else ({compute: (($x.computation // 0) - ($m.computation // 0)),
               exposed_comm: (($x.exposed_comm // 0) - ($m.exposed_comm // 0)),
               idle: (($x.idle // 0) - ($m.idle // 0))}) as $extra
          | {rank: $x.rank, mean_step: $x.mean_step,
             median_rank: $m.rank, median_step: $m.mean_step,
             ratio: ($x.mean_step / $m.mean_step),
             extra_us: ($x.mean_step - $m.mean_step),
             extra: $extra,
             cause: ($extra | to_entries | max_by(.value)
               | if .value > 0 then .key else "other" end),
             operator: $x.slower_operator,
             # In a collective every rank waits for the last to arrive:
             # the one that waits least is the likely slow one.
             least_waiting_rank: ($rows | map(select(.exposed_comm != null))
               | if length == 0 then null else min_by(.exposed_comm).rank end)}
        end
    end;

# Active bytes by allocation site over every device (mem-segments'
# memory_sites), most first; complete when no device left sites out.
def memory_sites:
  recs("memory_sites")
  | if length == 0 then null
    else {devices: map(.device),
          complete: all(.[]; .other_blocks == 0),
          no_site_bytes: (map(.no_site_bytes) | add),
          sites: ([.[].sites[]] | group_by(.site)
            | map({site: .[0].site, bytes: (map(.bytes) | add), blocks: (map(.blocks) | add)})
            | sort_by([-.bytes, .site]))} end;

# A GEMM shape's M, N, K (and batch) from op_shape's dims: mm and bmm
# take A and B first, addmm and baddbmm the added input before them.
def gemm_mnk:
  (if .name == "aten::addmm" or .name == "aten::baddbmm" then .dims[1:3] else .dims[0:2] end) as [$a, $b]
  | {b: (if ($a | length) == 3 then $a[0] else 1 end), m: $a[-2], k: $a[-1], n: $b[-1]};

# Output tiles of 128×128 a GEMM shape gives the GPU's SMs to share.
def gemm_tiles($s): (($s.m / 128) | ceil) * (($s.n / 128) | ceil) * $s.b;

# The tensor-core alignment a precision wants, in elements (cuBLAS: 16
# bytes).
def align_of($p): {"fp8": 16, "int8": 16, "fp16": 8, "bf16": 8, "tf32": 4, "fp32": 4}[$p] // 1;

# The time ledger's slices (mrp-records(5)) that are the work itself: GPU
# compute kernels, and on a CPU-only trace the model's compute operators.
# These are judged by how near the hardware's limit they run, never by
# their size.
def useful_slices($gpu):
  if $gpu then ["gpu_graph", "gpu_gemm", "gpu_conv", "gpu_attention", "gpu_other"]
  else ["cpu:matmul/linear", "cpu:convolution", "cpu:attention",
        "cpu:normalization", "cpu:activation", "cpu:elementwise",
        "cpu:reduction", "cpu:embedding"] end;

# Whether . is one of the values of $list: an array difference, which
# libjq 1.6 does in C, for a tenth of what any() costs it.
def among($list): ([.] - $list) == [];

# Operators that make a view or a new tensor: every layer calls them,
# loop or not.
def view_ops:
  ["aten::view", "aten::_unsafe_view", "aten::as_strided", "aten::transpose",
   "aten::t", "aten::reshape", "aten::expand", "aten::permute",
   "aten::unsqueeze", "aten::squeeze", "aten::slice", "aten::select",
   "aten::narrow", "aten::split", "aten::chunk", "aten::flatten",
   "aten::contiguous", "aten::detach", "aten::alias", "aten::lift_fresh",
   "aten::resolve_conj", "aten::resolve_neg", "aten::empty",
   "aten::empty_strided", "aten::empty_like", "aten::zeros"];

# What a slice is, for people.
def slice_label:
  {gpu_graph: "GPU: CUDA/HIP graph replays",
   gpu_gemm: "GPU: GEMM kernels", gpu_conv: "GPU: convolution kernels",
   gpu_attention: "GPU: attention kernels", gpu_other: "GPU: other kernels",
   gpu_memset: "GPU: memset", gpu_comm: "GPU: communication, not hidden",
   gpu_memcpy: "GPU: memcpy, not hidden",
   warm_up: "Warm-up: first-use setup calls",
   profiler: "Profiler overhead",
   harness: "Harness around the step",
   sync: "Host waits on synchronize", blocking_copy: "Host blocked in copies",
   allocator: "Allocator calls (malloc/free)", launch: "Kernel launches",
   runtime_other: "Other runtime calls", data_loading: "Data loading",
   optimizer: "Optimizer", python: "Python outside operators",
   graph_queued: "Graph launched, waiting for its first kernel",
   untraced: "Nothing traced"}[.]
  // (if startswith("cpu:") then "CPU operators: " + .[4:] else . end);

# The primary rank's ledger (op-rank's ledger_total), with each slice's
# share of its wall time, by name.
def ledger($r):
  recs("ledger_total") | of_rank($r) | .[0]
  | if . == null or .wall <= 0 then null
    else . as $l
      | . + {by: ($l.slices | map({key: .slice,
                 value: (. + {share: (.time / $l.wall)})}) | from_entries)} end;

# Slices of 5 % or more (slice_share_min) that are not useful work and that no rule of their
# own explains ($own), largest first: the generic finding speaks for the
# first.
def unexplained($l; $own):
  if $l == null then []
  else useful_slices($l.gpu_busy != null) as $useful
    | [$l.slices[] | select(.time >= $th.slice_share_min * $l.wall)
       | select(.slice | among($useful + $own) | not)
       | . + {share: (.time / $l.wall), label: (.slice | slice_label)}]
  end;

# The collective a communication operator runs ("nccl:all_to_all",
# "c10d::alltoall_base_", "gloo:all_reduce", "nccl:_allgather_base"), or
# null.  contains(), not test(): libjq 1.6 leaks in regexes.
def comm_kind:
  (ascii_downcase | split("_") | join("")) as $n
  | if ($n | contains("alltoall")) then "all_to_all"
    elif ($n | contains("allreduce")) then "all_reduce"
    elif ($n | contains("allgather")) then "all_gather"
    elif ($n | contains("reducescatter")) then "reduce_scatter"
    elif ($n | contains("broadcast")) then "broadcast"
    elif ($n | endswith("::send") or endswith("::recv") or endswith(":send") or endswith(":recv")) then "send_recv"
    else null end;

# An operator shape this far below its peak (a fraction of it) gets the
# command that replays it alone (snip-new --from-trace), as a GEMM this
# far below is slow to the gemm-below-peak rule.
def far_from_peak: $th.of_peak_max;

# A word for a POSIX shell as Python's shlex.quote() writes it; with a
# control character, as bash's $'...' with \xNN escapes, so that no line
# break reaches the report's code block.  explode, not test(): libjq 1.6
# leaks in test().
def shq:
  def control: . < 32 or . == 127;
  def hex2: [(. / 16 | floor), . % 16] | map("0123456789abcdef"[.:. + 1]) | join("");
  def escapes($s): split($s) | length - 1;
  # Letters, digits and _@%+=:,./- alone.  @uri leaves letters, digits and
  # -_.!~*'() as they are and writes every other byte as %XX: a word is
  # plain when it has none of !~*'() and each %XX is one of @%+=:,/'s.
  # These run in C; a test of each character costs libjq 1.6 thousands
  # of instructions.
  def plain:
    length > 0
    and (contains("!") or contains("~") or contains("*") or contains("'")
      or contains("(") or contains(")") | not)
    and (@uri | escapes("%") == escapes("%40") + escapes("%25")
      + escapes("%2B") + escapes("%3D") + escapes("%3A") + escapes("%2C")
      + escapes("%2F"));
  if plain then .
  else explode as $c
    | if any($c[]; control) then
      "$'" + ($c | map(if control then "\\x" + hex2 elif . == 39 then "\\'"
        elif . == 92 then "\\\\" else [.] | implode end) | join("")) + "'"
    else "'" + ($c | map(if . == 39 then "'\"'\"'" else [.] | implode end) | join("")) + "'"
    end
  end;

def median_of: sort | if length == 0 then null
  elif length % 2 == 1 then .[length / 2 | floor]
  else (.[length / 2 - 1] + .[length / 2]) / 2 end;

# The rank the others wait for at their collectives, where the backend
# runs them on the CPU (gloo; op-rank's rank_summary collective): matched
# call by call across ranks, each instance's last rank to arrive is the one
# that spends least in it, and the others wait past it.  A rank is late
# when it is last at most instances and the others' median wait a step is
# late_share or more of their median step, whatever the mean steps say (in
# synchronous training every rank's step lasts as long as the late one's).
# Where its extra time goes: the ledger slice (op-rank's ledger_total per
# rank, per window) furthest above the median of the others, waits aside.
def late_share: $th.late_share_min;
def late_rank($rows):
  ($rows | map(select(.steps > 0 and .mean_step != null and .collective.instances > 0))) as $w
  | if ($w | length) < 2 then null
    else ($w | max_by([.collective.last_at, -.rank])) as $late
    | ($w | map(select(.rank != $late.rank))) as $others
    | ($others | map(.collective.waited / .steps) | median_of) as $wait
    | ($others | map(.mean_step) | median_of) as $step
    | if $late.collective.last_at * 2 <= $late.collective.instances
        or $step <= 0 or $wait < late_share * $step then null
      else (recs("ledger_total") | map(select(.rank != null and .windows > 0)
              | {rank, by: (.windows as $n | .slices | map({key: .slice, value: (.time / $n)}) | from_entries)})) as $led
        | ($led | map(select(.rank == $late.rank)) | .[0].by) as $mine
        | ($led | map(select(.rank != $late.rank)) | map(.by)) as $theirs
        | {rank: $late.rank, collective: $late.collective.name,
           names: ($late.collective.names // 1), own_step: $late.mean_step,
           last_at: $late.collective.last_at, instances: $late.collective.instances,
           wait_per_step: $wait, median_step: $step, share: ($wait / $step),
           ranks: ($w | length),
           extra: (if $mine == null or ($theirs | length) == 0 then null
             else [$mine | keys[] | select(. != "cpu:communication" and . != "gpu_comm")
                   | . as $k | {slice: $k, per_step: ($mine[$k] - ([$theirs[] | .[$k] // 0] | median_of))}]
               | map(select(.per_step > 0)) | max_by(.per_step)
               | if . == null then null else . + {label: (.slice | slice_label)} end end)}
      end
    end;

# Whether a window's graph (crit-path's edge_types) holds GPU work: every
# piece of it has its launch's edge, at least.
def gpu_edges:
  ((.kernel_launch_delay // 0) + (.kernel_kernel_delay // 0)
   + (.sync_dependency // 0)) > 0;

# The critical path of the rank's windows (crit-path's critical_path
# records; of each rank the first 64 windows reach the rubric): their
# length, its time by bound class and the events that hold most of it.
def critical_path($r):
  recs("critical_path")
  | map(select(.length_us != null and .length_us > 0
      and ($r == null or .rank == $r)))
  | if length == 0 then null
    else {windows: length, length_us: (map(.length_us) | add),
          gpu: any(.[]; .edge_types | gpu_edges),
          by_class: (reduce .[].by_class_us as $c ({};
            reduce ($c | to_entries[]) as $e (.; .[$e.key] += $e.value))),
          top: ([.[].top[]] | group_by([.name, .class, .frame])
            | map({name: .[0].name, class: .[0].class, frame: .[0].frame,
                   count: (map(.count) | add), us: (map(.us) | add)})
            | sort_by(-.us) | .[0:3])}
    end;

def facts:
  (.counts // {}) as $counts
  | primary_rank as $r
  | (recs("memory_summary") | map(select(.scope == "all")) | .[0]) as $mem
  | (recs("cpu_summary") | (map(select(has("ranks"))) + map(select(has("ranks") | not))) | .[0]) as $cpu
  | rank_rows as $ranks
  | late_rank($ranks) as $late
  | (if ($ranks | length) > 1 then wall_steps else null end
     // (recs("step_stats") | of_rank($r) | .[0])) as $steps
  | (recs("phase_total") | of_rank($r)
     | if length == 0 then null else map({key: .phase, value: .}) | from_entries end) as $phases
  | (recs("family_total") | of_rank($r)
     | if length == 0 then null else map({key: .family, value: .}) | from_entries end) as $families
  | (recs("gpu_timeline") | of_rank($r) | gpu_sum) as $gpu
  | (recs("runtime_total") | of_rank($r) | .[0]) as $rt
  | ledger($r) as $ledger
  | critical_path($r) as $critical
  | (recs("churn") | if length == 0 then null else max_by(.churn) end) as $churn
  | (recs("memory_growth") | if length == 0 then null else max_by(.bytes) end) as $growth
  | (recs("memory_profile") | map(select(.device_type == 1))
     | if length == 0 then null else max_by(.peak_allocated) end) as $mprof
  | ($steps != null and $steps.steps >= 1 and $steps.total > 0) as $has_steps
  # Without steps, op-rank's ledger may infer iterations from a call that
  # starts each (DataLoader.__next__, Optimizer.step): their windows stand
  # for the steps, and the ledger's slices for the phases.
  | (($has_steps | not) and $ledger.window == "iteration") as $iters
  # Shares are of the wall time the ledger partitions, the union of its
  # windows: step spans that run on to their last kernel overlap, and
  # their sum is more than the run took.
  | (if $ledger != null and ($has_steps or $iters) then $ledger.wall
     elif $has_steps then $steps.total elif $iters then $ledger.wall
     elif $cpu != null and $cpu.window > 0 then $cpu.window else null end) as $step_time
  | (recs("context") | .[0]) as $ctx
  | precision_shares($r) as $prec
  | ($mem.allocator_settings // {}) as $alloc
  | (recs("op") | of_rank($r)) as $all_ops
  | ($all_ops | map(select(.class == "op"))) as $ops
  # Each operator's name and family as JSON text, [["name","family"],...]:
  # contains() searches it in C, and tells at once that no operator has a
  # name or a family, where libjq 1.6 takes thousands of instructions to
  # test each operator.  A name is always preceded by [" there, and a
  # family followed by "]; where the text has one, the operators are
  # tested as before.
  | ($all_ops | map([.name, .family]) | tojson) as $op_text
  | (recs("compute_summary") | of_rank($r) | .[0]) as $compute
  | (recs("gpu_device") | of_rank($r) | .[0]) as $device
  | (recs("op_shape") | of_rank($r)) as $shapes
  | (recs("input") | map(select(.role == "trace"))) as $traces
  | ($shapes | map(select(.model == "gemm" and .gpu_us > 0))) as $gemms
  | ($gemms | map(select(.of_peak != null and .of_peak < far_from_peak))) as $slow_gemms
  | ($gemms | map(select(.precision == "fp32") | .gpu_us) | add) as $fp32_gemm_us
  | {
      memory: $mem,
      memory_devices: (recs("memory_summary") | map(select(.scope == "device"))),
      segments: recs("segment"),
      churn: $churn,
      memory_profile: $mprof,
      cpu: $cpu,
      rank: $r,
      ranks: (if ($ranks | length) > 1 then $ranks else null end),
      nranks: ($ranks | length),
      # One straggler: in synchronous training every rank's step lasts
      # as long as the late one's, so the rank the others wait for at the
      # collectives, when there is one; else the rank whose mean step is
      # long, unless its extra time is that wait.
      straggler: (if $late != null
        then {rank: $late.rank, by: "collectives", mean_step: $late.own_step,
              median_step: $late.median_step, wait_per_step: $late.wait_per_step,
              share: $late.share, extra: $late.extra}
        else straggler($ranks) | if . == null then null else . + {by: "mean_step"} end end),
      # How op-rank chose the rank whose detail the records hold.
      primary_by: ($cpu.slowest_by // null),
      late_rank: $late,
      # Each collective matched across the ranks (op-rank's
      # collective_total records), the one that keeps ranks waiting longest
      # first.
      collectives: (recs("collective_total")
        | if length == 0 then null
          else map(del(.kind)) | sort_by(-(.median_skew * .instances), .name) end),
      ops: $ops,
      # The operator table as key_averages() has it: operators and the
      # runtime calls under them, each a row, by total time.
      op_rows: ($all_ops | map(select(.class == "op" or .class == "runtime"))
        | sort_by(-.total, .name)),
      kernels: (recs("kernel") | of_rank($r)),
      families: $families,
      phases: $phases,
      steps: $steps,
      step_list: (recs("step") | of_rank($r)),
      gpu: $gpu,
      runtime: $rt,
      # The collectives the communication operators run, by their host
      # time, most first: the kind decides the communication advice.
      comm_kinds: (if $op_text | contains(",\"communication\"]") | not then []
        else [$all_ops[] | select(.class == "op" and .family == "communication")
          | {kind: (.name | comm_kind), total} | select(.kind != null)]
        | group_by(.kind) | map({kind: .[0].kind, total: (map(.total) | add)})
        | sort_by(-.total, .kind) end),
      # The runtime calls with the most time, by the ledger slice their
      # names put them in (op-rank's runtime_call records, largest first).
      runtime_calls: (reduce (recs("runtime_call") | of_rank($r))[] as $c
        ({}; .[$c.slice] = .[$c.slice] + [$c])),
      # What issued the sync, copy and allocator calls: the innermost
      # operator or annotation open at each (runtime_caller records).
      runtime_callers: (reduce (recs("runtime_caller") | of_rank($r))[] as $c
        ({}; .[$c.slice] = .[$c.slice] + [$c])),
      # The same calls whole, by the user's frame, operator and who issued
      # them: the model, the harness around it or the profiler
      # (runtime_issuer records, the most time first).
      issuers: (reduce (recs("runtime_issuer") | of_rank($r))[] as $c
        ({}; .[$c.slice] = .[$c.slice] + [$c])),
      context: $ctx,
      objective: $ctx.objective,
      phase: $ctx.phase,
      # mem-segments and churn-score read the same snapshot: say each once.
      warnings: (recs("warning") | unique_by([.file, .line, .col, .message])),
      # Denominators: the time of the profiled steps, else the traced
      # window (wall-clock), never a sum of CPU time over threads.
      has_steps: $has_steps,
      has_iterations: ($has_steps or $iters),
      iterations_from: (if $iters then $ledger.inferred_from else null end),
      step_time: $step_time,
      step_time_name: (if $has_steps then "step time"
        elif $iters then "the iterations' time" else "the traced window" end),
      gemm_precision: $prec,
      reduced_gemm_share: (if $prec == null then null
        else [reduced_precisions[] as $p | $prec[$p] // 0] | add end),
      tf32_gemm_share: (if $prec == null then null else $prec.tf32 // 0 end),
      declared_precision: ($ctx.precision // null),
      expandable_segments: ($alloc.expandable_segments == true),
      max_split_set: (($alloc.max_split_size // -1) > 0 and ($alloc.max_split_size // -1) < 9007199254740992),
      gc_threshold_set: (($alloc.garbage_collection_threshold // 0) > 0),
      roundup_set: ([$alloc.roundup_power2_divisions // {} | .. | numbers | select(. > 0)] | length > 0),
      split_fragmentation: ($mem.split_fragmentation // null),
      releasable_share: ($mem.releasable_share // null),
      # Bursts of segment releases that neither the stacks (churn-score
      # tells empty_cache() from the allocator's retry by them) nor the
      # retries counted in memory_stats() explain: each retry releases the
      # cache at most once.  Records of older churn-scores have bursts only.
      user_free_bursts: (if $churn == null then null
        elif $churn.unattributed_bursts != null then
          [$churn.unattributed_bursts
           - ([($mem.num_alloc_retries // 0) - $churn.retries_succeeded - $churn.retries_failed, 0] | max), 0] | max
        else [($churn.segment_free_bursts // 0)
              - ([$churn.retry_bursts // 0, $mem.num_alloc_retries // 0] | max), 0] | max end),
      alloc_retries_seen: (if $churn.retries_succeeded == null then null
        else $churn.retries_succeeded + $churn.retries_failed end),
      growth: $growth,
      growth_share: share($growth.bytes; $mem.reserved),
      memory_sites: memory_sites,
      # The time above the median step: what steadier steps could give
      # back, at most (op-rank's step_stats and wall_steps carry it).
      above_median_share: (if $steps == null or $steps.steps < $th.variation_steps_min then null
        else share($steps.above_median; $steps.total) end),
      # The ledger's slices where there is one: input loading or the
      # optimizer while no GPU work runs, what the step waits for.
      dataloader_us: (if $ledger != null then $ledger.by.data_loading.time // 0
        else $phases.dataloader.self end),
      dataloader_share: (if $ledger != null then $ledger.by.data_loading.share // 0
        else share($phases.dataloader.self; $step_time) end),
      optimizer_us: (if $ledger != null then $ledger.by.optimizer.time // 0
        else $phases.optimizer.self end),
      optimizer_share: (if $ledger != null then $ledger.by.optimizer.share // 0
        else share($phases.optimizer.self; $step_time) end),
      # The optimizer the trace names (Optimizer.step#AdamW.step) and how
      # it updates: fused kernels, foreach (multi-tensor) kernels, or a
      # loop over the parameters.
      optimizer_name: (if $op_text | contains("[\"Optimizer.step#") | not then null
        else $all_ops | map(.name | select(startswith("Optimizer.step#"))
        | .[15:] | split(".")[0]) | .[0] end),
      optimizer_impl: (if ($op_text | contains("[\"aten::_fused_"))
          and ($all_ops | any(.[]; .name | startswith("aten::_fused_"))) then "fused"
        elif (($op_text | contains("[\"aten::_foreach_"))
            and ($all_ops | any(.[]; .name | startswith("aten::_foreach_"))))
          or (recs("kernel") | of_rank($r) | any(.[]; .name | contains("multi_tensor_apply")))
        then "foreach" else "loop" end),
      cpu_matmul_share: share($families["matmul/linear"].self; $cpu.self_total),
      gpu_matmul_share: share(($families["matmul/linear"].gpu_self // 0) + ($families.convolution.gpu_self // 0); $cpu.gpu_total),
      # GPU utilisation over the ledger's windows (the steps, or the
      # traced window), not over the GPU's own active span.
      ledger: $ledger,
      critical: $critical,
      gpu_busy_us: ($ledger.gpu_busy // $gpu.busy),
      gpu_window_us: (if $ledger.gpu_busy != null then $ledger.wall else $gpu.window end),
      window_name: (if $ledger == null then
          (if $has_steps then "step time" else "the traced window" end)
        elif $ledger.window == "iteration" then
          (if $ledger.windows == 1 then "the iteration" else "the iterations" end)
          + " inferred from the " + $ledger.inferred_from + " calls"
        elif $ledger.window != "step" then "the traced window"
        elif $ledger.windows == 1 then "the step" else "the steps" end),
      gpu_idle_clause: (if $ledger.gpu_busy != null then ", while no GPU work runs" else "" end),
      # A slice's time per window (µs per step), what a fix changes: a
      # share would grow as the fix shrinks the step around it.
      per_window: (if $ledger == null then null
        else $ledger.by | reduce keys_unsorted[] as $k (.;
          .[$k] = .[$k].time / $ledger.windows) end),
      gpu_util: (if $ledger.gpu_busy != null then share($ledger.gpu_busy; $ledger.wall)
        else share($gpu.busy; $gpu.window) end),
      gpu_idle_share: (if $ledger.gpu_busy != null then share($ledger.gpu_idle; $ledger.wall)
        else share($gpu.idle; $gpu.window) end),
      comm_share: ([share($gpu.comm; $gpu.window), share($phases.communication.self; $step_time)] | map(select(. != null)) | max),
      # What the late-rank rule claims, the rank's wait for the late one,
      # is not the communication rules' to claim again.
      exposed_comm_share: share(
        if $late == null or $gpu.exposed_comm == null then $gpu.exposed_comm
        else [$gpu.exposed_comm - ($ranks | map(select(.rank == $r))
                | .[0].collective.waited // 0), 0] | max end;
        $gpu.window),
      comm_exposed_fraction: share($gpu.exposed_comm; $gpu.comm),
      mean_kernel_us: (if $gpu != null and $gpu.events > 0 then $gpu.busy / $gpu.events else null end),
      # Launch time from the ledger where there is one: launches of 1 ms
      # or more are warm-up there, not overhead that CUDA graphs remove.
      launch_share: (if $ledger != null then ($ledger.by.launch.share // 0)
        else share($rt.launch; $step_time) end),
      warm_up_share: $ledger.by.warm_up.share,
      profiler_share: $ledger.by.profiler.share,
      sync_slice_share: $ledger.by.sync.share,
      copy_slice_share: $ledger.by.blocking_copy.share,
      alloc_slice_share: $ledger.by.allocator.share,
      python_slice_share: $ledger.by.python.share,
      untraced_slice_share: $ledger.by.untraced.share,
      # The model's own synchronisations: the harness's and the
      # profiler's are not its author's to remove.
      sync_share: (if recs("runtime_issuer") | of_rank($r) | length > 0
        then share([recs("runtime_issuer") | of_rank($r)[]
                    | select(.slice == "sync" and .who == "model") | .total] | add // 0; $step_time)
        else share($rt.sync; $step_time) end),
      model_sync_us: ([recs("runtime_issuer") | of_rank($r)[]
        | select(.slice == "sync" and .who == "model") | .total] | add),
      model_sync_count: ([recs("runtime_issuer") | of_rank($r)[]
        | select(.slice == "sync" and .who == "model") | .count] | add),
      sync_ops: (if $op_text | contains("[\"aten::item\",") or contains("[\"aten::_local_scalar_dense\",")
          or contains("[\"cudaStreamSynchronize\",") | not then []
        else $ops | map(select(.name == "aten::item" or .name == "aten::_local_scalar_dense" or .name == "cudaStreamSynchronize")) end),
      step_cv: (if $steps != null and $steps.steps >= $th.variation_steps_min and $steps.mean > 0
        then $steps.std / $steps.mean else null end),
      # Per profiled step, so that runs with more or fewer steps compare.
      cpu_matmul_per_step: (if $families == null or ($steps.steps // 0) <= 0 then null
        else ($families["matmul/linear"].self // 0) / $steps.steps end),
      gpu_gemm_per_step: (if $families == null or ($steps.steps // 0) <= 0 then null
        else (($families["matmul/linear"].gpu_self // 0) + ($families.convolution.gpu_self // 0)) / $steps.steps end),
      # The slowest rank's mean step over the median rank's.
      slowest_rank_ratio: ($ranks | map(.mean_step) | map(select(. != null)) | sort
        | if length < 2 or .[(length - 1) / 2 | floor] <= 0 then null
          else .[-1] / .[(length - 1) / 2 | floor] end),
      fragmentation: $mem.fragmentation,
      # FLOPs from the shapes (op-rank's op_shape and compute_summary).
      compute: $compute,
      # Each shape's rank among its operator's (snip-new --nth), and the
      # command that replays one far below its peak; TRACE where the
      # report has several traces (the rank's own is the one).
      shapes: ($shapes
        | [foreach .[] as $s ({}; .[$s.name] += 1; $s + {nth: .[$s.name]})]
        | map(. + {replay: (if .of_peak != null and .of_peak < far_from_peak
            and (.gpu_us // 0) > 0
            then "snip-new --from-trace "
              + (if ($traces | length) == 1 then $traces[0].path | shq else "TRACE" end)
              + " --op " + (.name | shq) + " --nth \(.nth)"
            else null end)})),
      # GEMM shapes far below the peak of their precision, by GPU time:
      # what running them at half the peak would give back, at most.
      slow_gemms: ($slow_gemms | sort_by(-.gpu_us)),
      slow_gemm_share: share($slow_gemms | map(.gpu_us * (1 - .of_peak / 0.5)) | add; $step_time),
      # fp32 GEMM time on a GPU with a faster precision for it.
      fp32_gemm_us: ($fp32_gemm_us // 0),
      fp32_gemm_share: share($fp32_gemm_us; $step_time),
      # The GPU and what its tensor cores run (op-rank's gpu_device, from
      # gpu-peaks.tsv by name or gpu-arch.tsv by compute capability):
      # precisions null where neither knows the GPU.
      gpu_device: $device,
      gpu_precisions: $device.precisions,
      fast_precision: ($device.precisions // []
        | [("bf16", "tf32") as $p | select(any(.[]; . == $p)) | $p] | .[0]),
      half_precision: ($device.precisions // []
        | [("bf16", "fp16") as $p | select(any(.[]; . == $p)) | $p] | .[0]),
      # Attention done as bmm, softmax and bmm: no fused kernel ran.
      # any(), not index() or test(): libjq 1.6 leaks in both.
      unfused_attention: (($op_text | contains("[\"aten::bmm\","))
        and ($ops | any(.[]; .name == "aten::_softmax" or .name == "aten::softmax"))
        and ($ops | any(.[]; .name == "aten::bmm"))
        and ($shapes | any(.[]; .model == "attention") | not)
        and ($ops | any(.[]; .name | contains("scaled_dot_product") or contains("flash")
              or contains("fmha") or contains("attention")) | not)),
      # Their GPU time, or on a CPU-only trace their CPU time.
      unfused_attention_share: share(if $op_text | contains("[\"aten::bmm\",")
          or contains("[\"aten::_softmax\",") | not then null
        else $ops | map(select(.name == "aten::bmm" or .name == "aten::_softmax"))
        | map(if (.gpu_total // 0) > 0 then .gpu_total else .total end) | add end; $step_time),
      have_trace: ($cpu != null),
      have_snapshot: ($mem != null),
      # torch.compile (op-rank's compile): regions, recompiles, graph
      # breaks, guards and compile time.
      compile: (recs("compile") | of_rank($r) | .[0]),
      # CUDA or HIP graph replays (op-rank's graph_replay): their kernels
      # run under the launch's correlation id, linked to no operator.
      graph: (recs("graph_replay") | of_rank($r) | .[0]),
      # A serving engine's steps (op-rank's serve_phase, serve_summary and
      # the first serve_step records), by phase.
      serving: ((recs("serve_summary") | of_rank($r) | .[0]) as $ss
        | if $ss == null then null
          else {summary: ($ss | del(.kind)),
                phases: (recs("serve_phase") | of_rank($r) | map(del(.kind))),
                steps: (recs("serve_step") | of_rank($r) | map(del(.kind))),
                step_count: ($counts.serve_step // 0)} end)
    }
  # What the memory rules' advice leaves out as done, the cases of their
  # actions.  An OOM: bf16 unless the GEMMs or the declared precision are
  # reduced already, expandable segments unless they are on or little
  # memory is split off.  Allocator retries: which of
  # garbage_collection_threshold and expandable_segments the run sets.
  # Split fragmentation: max_split_size set, else expandable segments on,
  # else neither.
  | .oom_case = (((.reduced_gemm_share // 0) >= 0.8
        or ((.declared_precision // "") | IN("bf16", "fp16", "fp8"))) as $reduced
      | (.expandable_segments or ((.split_fragmentation // 0) < 0.1)) as $unsplit
      | if $reduced and $unsplit then "shrink" elif $reduced then "shrink_expandable"
        elif $unsplit then "shrink_bf16" else "shrink_bf16_expandable" end)
  | .alloc_retries_case = (if .gc_threshold_set and .expandable_segments then "threshold_expandable"
      elif .gc_threshold_set then "threshold"
      elif .expandable_segments then "expandable" else "neither" end)
  | .fragmentation_case = (if .max_split_set then "max_split"
      elif .expandable_segments then "expandable" else "neither" end)
  | .gpu_window_name = (if .ledger.gpu_busy != null then .window_name
      else "the GPU's active span" end)
  # Without steps: iterations inferred from the calls that start them, or
  # only the traced window.
  | .iterations_case = (if .iterations_from != null then "inferred" else "window" end)
  # What the windows are (op-rank's ledger phases): capturing CUDA graphs
  # or compiling is not the run's steady state, and rules that judge
  # utilisation, launches or Python do not judge it.
  | .window_phases = (.ledger.phases // [] | map({key: .phase, value: .}) | from_entries)
  | .capture_share = share(.window_phases.capture.wall // 0; .ledger.wall)
  | .compile_share = share(.window_phases.compile.wall // 0; .ledger.wall)
  | .steady = ((.capture_share // 0) + (.compile_share // 0) < $th.unsteady_share_max)
  | .has_frames = ((.ledger.python_frames // 0) > 0)
  # What holds the late rank's extra time (the host, compute, or work of
  # its own), and what makes the straggler slow: the cases of their texts.
  | .late_rank_case = ((.late_rank.extra.slice // "") as $s
      | if $s == "untraced" or $s == "python" or $s == "data_loading"
          or $s == "sync" or $s == "allocator" or $s == "blocking_copy" then "host"
        elif ($s | startswith("cpu:")) or ($s | startswith("gpu_")) then "compute"
        else "other" end)
  | .straggler_case = (.straggler.cause as $c
      | if $c == "exposed_comm" or $c == "compute" or $c == "idle" then $c
        else "operator" end)
  | .harness_share = .ledger.by.harness.share
  # Steps that come back every k-th step longer (op-rank's periodic):
  # their time above the median step, and the slices that hold it.
  | .periodic = .ledger.periodic
  | .periodic_share = share(.ledger.periodic.extra; .ledger.wall)
  # The Python slice: the frame it is spent under and its innermost user
  # frames.  Under one frame that runs (almost) no operators it is input
  # work (decoding, parsing, image processing, I/O) that the interpreter
  # does, which no compiler of tensor code removes.
  | .python_under = .ledger.by.python.under
  | .python_top = (.ledger.by.python.top // [])
  | .python_input_work = (.python_under != null
      and .python_under.time >= $th.python_under_share_min * (.ledger.by.python.time // 0)
      and .python_under.work < $th.python_under_work_max * .python_under.time)
  # Which texts of python-between-ops explain it: input work, the frames
  # the trace names, or no frames at all.
  | .python_case = (if .python_input_work then "input_work"
      elif .has_frames then "frames" else "no_frames" end)
  # What bounds the steps: the largest class of time on their critical
  # path (crit-path), named where the graph holds GPU work or anything but
  # host work is on the path (a trace of host work alone has nothing on
  # its path but that).
  | (.critical.by_class // {} | to_entries | max_by(.value)) as $bound
  | .critical_case = $bound.key
  | .critical_label = ({cpu_bound: "host work on the CPU",
      data_loading: "data loading", gpu_compute_bound: "GPU computation",
      gpu_communication_bound: "GPU communication",
      kernel_kernel_overhead: "gaps between kernels",
      kernel_launch_overhead: "kernel launch overhead",
      host_blocked_on_sync: "the host blocked on synchronisation",
      graph_replay: "CUDA graph replay"}[$bound.key // ""] // $bound.key)
  | .critical_share = share($bound.value; .critical.length_us)
  | .critical_mixed = (.critical.gpu == true or ((.critical.by_class // {})
      | to_entries | any(.key != "cpu_bound" and .value > 0)))
  # The Python and untraced time the periodic steps add is theirs.
  | .python_periodic_us = (if .periodic == null then 0
      else (.periodic.slices.python // 0) + (if .has_steps then .periodic.slices.untraced // 0 else 0 end) end)
  # Attention FLOPs of the serving steps from their labels' sums, by
  # TraceLens's inference formulas (PerfModel's InferenceAttention): per
  # layer H·d·(4·c_sqsk − 2·c_sqsq + 4·g_sqsk), a head's query and value
  # sizes alike, where the context gives the heads, head size and layers.
  | (.context.extra // {}) as $x
  | ([$x.num_attention_heads, $x.num_heads, $x.heads] | map(select(type == "number" and . > 0)) | .[0]) as $heads
  | ([$x.head_dim, $x.head_size] | map(select(type == "number" and . > 0)) | .[0]) as $hdim
  | ([$x.num_hidden_layers, $x.num_layers, $x.layers] | map(select(type == "number" and . > 0)) | .[0]) as $layers
  | (.compute.peaks // {}) as $peaks
  | .serving_attention = (if .serving == null or $heads == null or $hdim == null or $layers == null then null
      else {heads: $heads, head_dim: $hdim, layers: $layers,
            phases: [.serving.phases[] | select(.attention_sums != null and (.time // 0) > 0)
              | (.attention_sums | $layers * $heads * $hdim * (4 * .c_sqsk - 2 * .c_sqsq + 4 * .g_sqsk)) as $fl
              | {phase, steps: .timed_steps, flops: $fl, tflops: ($fl / .time / 1e6),
                 of_peak: (if ($peaks.bf16 // null) == null then null else $fl / .time / 1e6 / $peaks.bf16 end)}]} end)
  # The graphs' share of the GPU's busy time: above half, the operator
  # tables and FLOPs speak for the eager rest only.
  | .graph_coverage = .graph.coverage
  # Dynamo's guard evaluations and the compiler's spans inside steady
  # windows, over the ledger's wall; graph breaks a window.
  | .guard_share = (if .compile == null or .ledger == null then null
      else share(.compile.guard_time; .ledger.wall) end)
  | .compile_steady_share = (if .compile == null or .ledger == null then null
      else share(.compile.compile_in_steady; .ledger.wall) end)
  | .breaks_per_window = (if .compile == null or .ledger == null then null
      else .compile.graph_breaks / .ledger.windows end)
  | .graph_queued_share = .ledger.by.graph_queued.share
  | .python_share = (if .ledger == null then null
      else [(.python_slice_share // 0) + (if .has_steps then .untraced_slice_share // 0 else 0 end)
            - .python_periodic_us / .ledger.wall, 0] | max end)
  # A copy whose GPU side is a sliver of the host's wait: the host waits
  # for the work queued before it (a read-back is a synchronisation
  # point), not for the bytes.
  | ([.kernels[] | select(.family == "memcpy")]) as $cp
  | .copy_gpu_us = ($cp | map(.total) | add // 0)
  | .copy_bytes = ($cp | map(.bytes // 0) | add // 0)
  | .copy_is_sync = ((.ledger.by.blocking_copy.time // 0) > 0
      and .copy_gpu_us < $th.copy_gpu_share_max * .ledger.by.blocking_copy.time)
  | .copy_case = (if .copy_is_sync then "sync_point" else "pageable" end)
  # The synchronize call that holds the most, and what issues it:
  # torch.cuda.synchronize(), a host read of a tensor, or an event wait.
  | .sync_api = (.runtime_calls.sync // [] | .[0].name // "")
  | .sync_case = (.sync_api | if endswith("DeviceSynchronize") then "device"
      elif endswith("StreamSynchronize") then "stream"
      elif endswith("EventSynchronize") then "event" else "other" end)
  # The optimizer's kernels: foreach (multi-tensor) or one per parameter.
  | .optimizer_case = (if .optimizer_impl == "foreach" then "foreach" else "for_loop" end)
  # The collective that holds the most, as its advice groups them, and the
  # library, links and gradient dtype that advice names on this platform.
  | .comm_case = ((.comm_kinds[0].kind // "all_reduce") as $k
      | if $k == "all_to_all" then "all_to_all"
        elif $k == "all_gather" or $k == "reduce_scatter" then "sharded"
        elif $k == "send_recv" then "pipeline"
        elif $k == "broadcast" then "broadcast" else "all_reduce" end)
  | .comm_library = (if .gpu_device.platform == "rocm" then "RCCL" else "NCCL" end)
  | .comm_links = (if .gpu_device.platform == "rocm" then "xGMI/InfiniBand"
      else "NVLink/InfiniBand" end)
  | .comm_hook_dtype = (if .gpu_precisions != null
      and (any(.gpu_precisions[]; . == "bf16") | not) then "fp16" else "bf16" end)
  # The costliest slow GEMM's shape as its hypothesis reads it: small
  # (fewer 128×128 output tiles than a data-centre GPU's SMs), a dimension
  # the tensor cores cannot load whole, or neither; null when there is
  # none, or its shape cannot be read.
  | .gemm = ((.slow_gemms // [])[0] as $g | if $g == null then null
      else try ($g | gemm_mnk as $s | align_of(.precision) as $a | gemm_tiles($s) as $t
        | {m: $s.m, n: $s.n, k: $s.k, tiles: $t, align: $a, precision,
           case: (if $t < $th.gemm_tiles_min then "small"
             elif [$s.m, $s.n, $s.k] | map(. % $a) | any(. != 0) then "misaligned"
             else "aligned" end)}) catch null end)
  # What float32 GEMMs should run in on this GPU: bf16 (with TF32 already
  # on for some, or allowed for the rest, or neither), else TF32 alone.
  | .fp32_gemm_case = (if .fast_precision != "bf16" then "tf32"
      elif (.tf32_gemm_share // 0) > 0 then "bf16_tf32_on"
      elif any((.gpu_precisions // [])[]; . == "tf32") then "bf16_allow_tf32"
      else "bf16" end)
  # Whether the float32 GEMMs' observation can compare this GPU's peaks,
  # or names its architecture's tensor-core precision alone.
  | .fp32_gemm_peaks_case = (if .fast_precision != null
        and .compute.peaks[.fast_precision] != null and .compute.peaks.fp32 != null
      then "peaks" else "no_peaks" end)
  # What the GEMMs should run in: fp16 with a GradScaler where the GPU has
  # no bf16, else bf16, with what it needs where the GPU is unknown, and
  # TF32 already on for some float32 GEMMs, or allowed for the rest (where
  # the GPU has it or is unknown), or neither.
  | .matmul_case = (if .half_precision == "fp16" then "fp16"
      elif .gpu_precisions == null and (.tf32_gemm_share // 0) > 0 then "unknown_gpu_tf32_on"
      elif .gpu_precisions == null then "unknown_gpu_allow_tf32"
      elif (.tf32_gemm_share // 0) > 0 then "bf16_tf32_on"
      elif any(.gpu_precisions[]; . == "tf32") then "bf16_allow_tf32"
      else "bf16" end)
  # The GPU as a sentence names it: its name, and its architecture
  # between commas after it ("NVIDIA GeForce RTX 2080 Ti, Turing,").
  | .gpu_called = (.gpu_device.name // .gpu_device.gpu // "this GPU")
      + (if .gpu_device.architecture != null then ", " + .gpu_device.architecture + "," else "" end)
  # Many tiny kernels whose launches, not warm-up, hold the idle GPU.
  | .launch_bound = (.mean_kernel_us != null and .mean_kernel_us < $th.launch_kernel_us_max
      and .gpu.events >= $th.launch_kernels_min
      and .runtime.launch >= $th.launch_busy_share_min * .gpu.busy
      and (.launch_share // 0) >= $th.launch_share_min)
  # The host's time in operators, out of the ledger's window: all of it on
  # a CPU-only trace, the part while no GPU work runs on a GPU trace.
  | .cpu_slices_share = (if .ledger == null then null
      else ([.ledger.slices[] | select(.slice | startswith("cpu:")) | .time]
        | add // 0) / .ledger.wall end)
  # Operators too short for their work to outweigh the call: under 10 µs
  # of self time a call, their self time mostly dispatch.  Their calls per
  # window and their self time, at most the operators' slices.
  | ([.ops[] | select(.count > 0 and .self < $th.tiny_op_us_max * .count)]) as $tiny
  | .tiny_calls_per_window = (if .ledger == null then null
      else ($tiny | map(.count) | add // 0) / .ledger.windows end)
  | .tiny_self_us = ($tiny | map(.self) | add // 0)
  | .tiny_mean_us = (if ($tiny | length) == 0 then null
      else .tiny_self_us / ($tiny | map(.count) | add) end)
  | .tiny_ops_share = (if .ledger == null then null
      else [.tiny_self_us / .ledger.wall, .cpu_slices_share] | min end)
  # A loop over elements repeats one computing operator a thousand times
  # a window; a model's layers repeat views and allocations that often
  # without one.
  | .tiny_top_calls_per_window = (if .ledger == null then null
      else .ledger.windows as $w
        | [$tiny[] | select(.name | among(view_ops) | not) | .count]
        | (max // 0) / $w end)
  | .many_tiny_ops = ((.tiny_calls_per_window // 0) >= $th.tiny_calls_min
      and (.tiny_top_calls_per_window // 0) >= $th.tiny_top_calls_min
      and (.tiny_ops_share // 0) >= $th.tiny_ops_share_min)
  # Casts (aten::_to_copy, under every .to(dtype), .float(), .type_as())
  # long enough to be the copy, not the call, and at least one a window:
  # at most their time, at most the data-movement operators' slice.
  | ([.ops[] | select(.name == "aten::_to_copy" and .count > 0
       and .total >= $th.cast_us_min * .count)]) as $casts
  | .cast_count = ($casts | map(.count) | add // 0)
  | .cast_us = ($casts | map(.total) | add // 0)
  | .cast_share = (if .ledger == null then null
      else [.cast_us / .ledger.wall, (.ledger.by["cpu:data movement"].share // 0)] | min end)
  | .dtype_conversion = (.ledger != null and .cast_count >= $th.cast_calls_min * .ledger.windows
      and (.cast_share // 0) >= $th.cast_share_min)
  # What the host rules outside the host-bound pool already claim of the
  # idle GPU's time, warm-up and the profiler's own time included: no
  # steady, unprofiled run pays those.
  | .host_named_share = ((if .many_tiny_ops then .tiny_ops_share else 0 end)
      + (if .dtype_conversion then .cast_share else 0 end)
      + (.warm_up_share // 0) + (.profiler_share // 0))
  # The time per window in slices that are not useful work.
  | .overhead_per_window = (if .ledger == null then null
      else useful_slices(.ledger.gpu_busy != null) as $useful | .ledger.windows as $n
        | [.ledger.slices[] | select(.slice | among($useful) | not)
           | .time] | (add // 0) / $n end)
  | .unexplained = unexplained(.ledger;
      ["warm_up", "profiler", "harness", "sync", "blocking_copy", "allocator", "python",
       "graph_queued"]
      + (if .has_steps then ["untraced"] else [] end)
      + (if .has_iterations then ["data_loading"] else [] end)
      + (if .has_iterations and .optimizer_impl != "fused" then ["optimizer"] else [] end)
      + (if .launch_bound then ["launch"] else [] end)
      + (if .late_rank != null then ["cpu:communication", "gpu_comm"] else [] end)
      + (if .many_tiny_ops then [.ledger.slices[] | .slice | select(startswith("cpu:"))]
         elif .dtype_conversion then ["cpu:data movement"] else [] end));
