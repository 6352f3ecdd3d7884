#!/usr/bin/env bash
# The many-core visit, in one command of at most about 8 minutes: the A/B test of the lab switch
# stealpool.lab.wakePolicy (one | fork | fork-steal; docs/lab/README.md, "Lab switches") and the
# rows issue 39 asks for, side by side with ForkJoinPool in the same run. It writes everything
# to one folder (at most 8 files, as the borrowed machine returns):
#   env.txt      machine, JDKs, date
#   ramp.txt     RampUpProbe: threads engaged and time to reach k of them, per policy
#   jmh.csv      every JMH cell, with the policy and JDK in the first two columns
#   log.txt      everything printed, JMH's own tables included
#
# Build the kit first, here (the kit is never committed):
#   mvn -B -q -DskipTests -Djcstress.skip=true install
#   bash ../shared/tools/portable-kit.sh && cp pool-lab/target/lab.jar .kit/
# On the many-core machine, from the project root:
#   bash .kit/portable-kit.sh run 'bash pool-lab/many-core.sh $OUT'
#   bash .kit/portable-kit.sh run 'MODE=ab bash pool-lab/many-core.sh $OUT'   (the A/B alone)
# Each section runs only while the time budget (BUDGET_S, default 480 s) lasts, most decisive
# first; a section cut short leaves what it measured.
set -uo pipefail
out=${1:?usage: many-core.sh OUTPUT_FOLDER}
mkdir -p "$out"
KIT=${KIT:?run through portable-kit.sh run}
J17=java
J25=${JAVA25:-}
budget=${BUDGET_S:-480}
start=$SECONDS
log=$out/log.txt
csv=$out/jmh.csv
echo "policy,jdk,benchmark,mode,threads,samples,score,error,unit,params" > "$csv"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "cores: $(nproc)"; grep -m1 "model name" /proc/cpuinfo || true
    uname -sr
    $J17 -version 2>&1 | head -n 1
    [[ -n $J25 ]] && $J25 -version 2>&1 | head -n 1
    echo "budget: ${budget} s"
} > "$out/env.txt"
cat "$out/env.txt"

left() { echo $((budget - (SECONDS - start))); }

# jmh JDK_LABEL JAVA POLICY ARGS...: one JMH run, its CSV rows appended with policy and JDK.
jmh() {
    local jdk=$1 jv=$2 policy=$3; shift 3
    local need=20
    if (($(left) < need)); then echo "skipped (budget): $jdk $policy $*" | tee -a "$log"; return; fi
    local tmp; tmp=$(mktemp)
    echo "### JDK $jdk, wakePolicy=$policy: $*" | tee -a "$log"
    timeout $(($(left) + 5)) $jv -jar "$KIT/benchmarks.jar" -f 1 -wi 2 -w 500ms -i "${ITER:-3}" -r 500ms "$@" \
        -jvmArgsAppend "-Dstealpool.lab.wakePolicy=$policy" -rf csv -rff "$tmp" >> "$log" 2>&1
    tail -n +2 "$tmp" | sed "s/^/$policy,$jdk,/" >> "$csv"
    tail -n +2 "$tmp" | cut -d, -f1,5,6 | sed "s/^/  $policy: /"
    rm -f "$tmp"
}

# ramp POLICY POOLS PARALLELISMS IDLE_US
ramp() {
    if (($(left) < 15)); then echo "skipped (budget): ramp $*" | tee -a "$log"; return; fi
    echo "### RampUpProbe, wakePolicy=$1, pools $2, workers $3, idle $4 us" | tee -a "$out/ramp.txt"
    timeout $(($(left) + 5)) $J17 -Xms1g -Xmx1g -Dstealpool.lab.wakePolicy="$1" -cp "$KIT/lab.jar" \
        io.github.stealpool.bench.RampUpProbe "$2" "$3" 25 300 "$4" 2>&1 | tee -a "$out/ramp.txt"
}

# MODE=ab: the decisive A/B alone, with more measurement per cell (about 5 minutes): each cell
# twice, the policies in turn and then in reverse order, ForkJoinPool beside them each time.
if [[ ${MODE:-all} == ab ]]; then
    ITER=5
    AB_FIB=(ParallelismFibBenchmark -p parallelism=16,32)
    AB_FJ=('ForkJoinBenchmark.(mergeSort1M|fib30)$')
    AB_SUB=(SubmitBenchmark -p producers=1 -p work=tiny)
    for order in "one fork fork-steal" "fork-steal fork one"; do
        jmh 17 $J17 one "${AB_FIB[@]}" -p pool=forkjoin
        for p in $order; do jmh 17 $J17 "$p" "${AB_FIB[@]}" -p pool=stealpool ; done
        jmh 17 $J17 one "${AB_FJ[@]}" -p pool=forkjoin
        for p in $order; do jmh 17 $J17 "$p" "${AB_FJ[@]}" -p pool=stealpool ; done
        for p in $order; do jmh 17 $J17 "$p" "${AB_SUB[@]}" -p pool=stealpool ; done
        [[ -n $J25 ]] && for p in $order; do jmh 25 $J25 "$p" "${AB_FIB[@]}" -p pool=stealpool ; done
    done
    [[ -n $J25 ]] && jmh 25 $J25 one "${AB_FIB[@]}" -p pool=forkjoin
    echo "done in $((SECONDS - start)) s" | tee -a "$log"
    exit 0
fi

# 1. The ramp, per policy (seconds each): does a fork tree reach the workers in generations?
ramp one stealpool,forkjoin 8,16,32 0
ramp fork stealpool 8,16,32 0
ramp fork-steal stealpool 8,16,32 0
ramp one stealpool 16 2000
ramp fork stealpool 16 2000
ramp fork-steal stealpool 16 2000

# 2. fib(25) invoked from outside, 8 / 16 / 32 workers, and the fork/join kernels: the rows the
#    policy is for. ForkJoinPool once, the policies in turn.
FIB=(ParallelismFibBenchmark -p parallelism=8,16,32)
FJ=('ForkJoinBenchmark.(mergeSort1M|fib30|fib30Cutoff)$')
jmh 17 $J17 one "${FIB[@]}" -p pool=stealpool,forkjoin
jmh 17 $J17 fork "${FIB[@]}" -p pool=stealpool
jmh 17 $J17 fork-steal "${FIB[@]}" -p pool=stealpool
jmh 17 $J17 one "${FJ[@]}" -p pool=stealpool,forkjoin
jmh 17 $J17 fork "${FJ[@]}" -p pool=stealpool
jmh 17 $J17 fork-steal "${FJ[@]}" -p pool=stealpool

# 3. What the policy must not cost: one outside producer (and 4, 16), tiny tasks, and the
#    latch-free variant that tells the benchmark's latch from the pool; the wake-up latency.
SUB=(SubmitBenchmark -p producers=1,4,16 -p work=tiny,tiny-adder)
jmh 17 $J17 one "${SUB[@]}" -p pool=stealpool,forkjoin
jmh 17 $J17 fork-steal "${SUB[@]}" -p pool=stealpool
jmh 17 $J17 one WakeupLatencyBenchmark -p pool=stealpool,forkjoin
jmh 17 $J17 fork-steal WakeupLatencyBenchmark -p pool=stealpool

# 4. JDK 25, the fork/join rows and one producer, if time is left.
if [[ -n $J25 ]]; then
    jmh 25 $J25 one ParallelismFibBenchmark -p parallelism=16,32 -p pool=stealpool,forkjoin
    jmh 25 $J25 fork ParallelismFibBenchmark -p parallelism=16,32 -p pool=stealpool
    jmh 25 $J25 one 'ForkJoinBenchmark.(mergeSort1M|fib30)$' -p pool=stealpool,forkjoin
    jmh 25 $J25 fork 'ForkJoinBenchmark.(mergeSort1M|fib30)$' -p pool=stealpool
    jmh 25 $J25 one SubmitBenchmark -p producers=1,16 -p work=tiny -p pool=stealpool,forkjoin
fi
echo "done in $((SECONDS - start)) s" | tee -a "$log"
