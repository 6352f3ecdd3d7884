#!/usr/bin/env bash
# The many-core visit, in one command of about 5 minutes: the rows issue 39 asks for, side by
# side with ForkJoinPool in the same run, on JDK 17 and 25. It writes everything to one folder
# (at most 8 files, as the borrowed machine returns them):
#   env.txt      machine, JDKs, date
#   ramp.txt     RampUpProbe: how fast a fib(25) round reaches its workers
#   storm.txt    TimerCancelStormProbe: the delay timer's backlog under 16 threads' schedule + cancel
#   jmh.csv      every JMH cell, with a label and the JDK in the first two columns
#   log.txt      everything printed, JMH's own tables included
#
# Build the kit first, here (the kit is never committed; trim it under the borrowed machine's
# 64 MiB: docs/lab/README.md, "Probes"):
#   mvn -B -q -DskipTests -Djcstress.skip=true install
#   bash ../shared/tools/portable-kit.sh && cp pool-lab/target/lab.jar .kit/
#   git log -1 --format='%h %s' > .kit/built-from.txt; git status --short >> .kit/built-from.txt
# (the kit copies whatever jars target/ holds: built-from.txt, copied into env.txt, says what
# they were built from, and a jar left from an experiment measures the experiment)
# On the many-core machine, from the project root:
#   bash .kit/portable-kit.sh run 'bash pool-lab/many-core.sh $OUT'
# An A/B of a lab switch (a system property read once at startup) runs the rows twice:
#   LABEL=a bash pool-lab/many-core.sh $OUT/a; LABEL=b JVM_ARGS=-Dstealpool.lab.x=y ...
# Each step runs only while the time budget (BUDGET_S, default 420 s) lasts, most decisive
# first; a run cut short keeps what it measured. STEPS picks steps by name (default: all of
# ramp forkjoin submit jdk25 schedule; also lateness, alone), so that one side of an A/B can rerun only the rows the
# switch touches: STEPS=forkjoin LABEL=always JVM_ARGS=... bash pool-lab/many-core.sh $OUT/ab
# FORKS (default 1) sets JMH's forks per cell, and multiplies each step's time by as much.
set -uo pipefail
out=${1:?usage: many-core.sh OUTPUT_FOLDER}
mkdir -p "$out"
KIT=${KIT:?run through portable-kit.sh run}
J17=java
J25=${JAVA25:-}
label=${LABEL:-main}
jvm_args=${JVM_ARGS:-}
budget=${BUDGET_S:-420}
steps=" ${STEPS:-ramp forkjoin submit jdk25 schedule} "
start=$SECONDS
log=$out/log.txt
csv=$out/jmh.csv
[[ -f $csv ]] || echo "label,jdk,benchmark,mode,threads,samples,score,error,unit,params" > "$csv"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "cores: $(nproc)"; grep -m1 "model name" /proc/cpuinfo || true
    uname -sr
    $J17 -version 2>&1 | head -n 1
    [[ -n $J25 ]] && $J25 -version 2>&1 | head -n 1
    echo "budget: ${budget} s, label: $label, JVM_ARGS: $jvm_args"
    if [[ -f $KIT/built-from.txt ]]; then
        echo "built from:"; cat "$KIT/built-from.txt"
    else
        echo "built from: unknown (no .kit/built-from.txt)"
    fi
} > "$out/env.txt"
cat "$out/env.txt"

left() { echo $((budget - (SECONDS - start))); }
want() { [[ $steps == *" $1 "* ]]; }

# jmh JDK_LABEL JAVA ARGS...: one JMH run (FORKS forks, default 1, each 2 x 0.5 s warm-up and
# ITER x 0.5 s measured; one fork is one draw from a JVM-to-JVM spread that reached 20% on
# 2 cores, docs/bench/two-cores-2026-11-28-spread.md),
# its CSV rows appended with the label and the JDK.
jmh() {
    local jdk=$1 jv=$2; shift 2
    if (($(left) < 20)); then echo "skipped (budget): $jdk $*" | tee -a "$log"; return; fi
    local tmp; tmp=$(mktemp)
    local extra=(); [[ -n $jvm_args ]] && extra=(-jvmArgsAppend "$jvm_args")
    echo "### JDK $jdk, $label: $*" | tee -a "$log"
    timeout $(($(left) + 5)) $jv -jar "$KIT/benchmarks.jar" -f "${FORKS:-1}" -wi 2 -w 500ms -i "${ITER:-3}" \
        -r 500ms "${extra[@]}" "$@" -rf csv -rff "$tmp" >> "$log" 2>&1
    tail -n +2 "$tmp" | sed "s/^/$label,$jdk,/" >> "$csv"
    tail -n +2 "$tmp" | cut -d, -f1,5,8- | sed "s/^/  /"
    rm -f "$tmp"
}

# ramp POOLS PARALLELISMS IDLE_US: RampUpProbe, fib(25), 300 rounds after 200.
ramp() {
    if (($(left) < 15)); then echo "skipped (budget): ramp $*" | tee -a "$log"; return; fi
    echo "### RampUpProbe, $label, pools $1, workers $2, idle $3 us" | tee -a "$out/ramp.txt"
    # shellcheck disable=SC2086 # JVM_ARGS is a list of options
    timeout $(($(left) + 5)) $J17 -Xms1g -Xmx1g $jvm_args -cp "$KIT/lab.jar" \
        io.github.stealpool.bench.RampUpProbe "$1" "$2" 25 300 "$3" 2>&1 | tee -a "$out/ramp.txt"
}

# 1. The ramp: how fast a fork tree reaches the workers, back to back and after 2 ms idle.
if want ramp; then
    ramp stealpool,forkjoin 8,16,32 0
    ramp stealpool,forkjoin 16 2000
fi

# 2. The fork/join rows: fib(25) invoked from outside at 8 / 16 / 32 workers, fib(30) without
#    and with cutoff, merge sort.
#    Fan-out from inside tasks belongs here too: a fork path's change shows in it.
if want forkjoin; then
    jmh 17 $J17 ParallelismFibBenchmark -p parallelism=8,16,32 -p pool=stealpool,forkjoin
    jmh 17 $J17 'ForkJoinBenchmark.(mergeSort1M|fib30|fib30Cutoff)$' -p pool=stealpool,forkjoin
    jmh 17 $J17 FanOutBenchmark -p parallelism=16 -p pool=stealpool,forkjoin
fi

# 3. Outside producers: 1, 4 and 16, tiny tasks and the latch-free variant that tells the
#    benchmark's latch from the pool; then the wake-up latency.
if want submit; then
    jmh 17 $J17 SubmitBenchmark -p producers=1,4,16 -p work=tiny,tiny-adder -p pool=stealpool,forkjoin
    jmh 17 $J17 WakeupLatencyBenchmark -p pool=stealpool,forkjoin
fi

# 4. JDK 25: the same rows, fewer cells.
if [[ -n $J25 ]] && want jdk25; then
    jmh 25 "$J25" ParallelismFibBenchmark -p parallelism=16,32 -p pool=stealpool,forkjoin
    jmh 25 "$J25" 'ForkJoinBenchmark.(mergeSort1M|fib30)$' -p pool=stealpool,forkjoin
    jmh 25 "$J25" SubmitBenchmark -p producers=1,16 -p work=tiny -p pool=stealpool,forkjoin
    jmh 25 "$J25" WakeupLatencyBenchmark -p pool=stealpool,forkjoin
fi
# 5. Delayed tasks (issue 37), where the timer thread has a core of its own (lateness: the early
#    wake's spin there): last, budget allowing.
if want schedule; then
    jmh 17 $J17 'ScheduleBenchmark.(scheduleBurst|scheduleCancel|lateness)$' -p pool=stealpool,stpe
    #    Schedule + cancel from 16 threads: STPE's one lock contended, where 2 cores never
    #    contend it (docs/lab/delay-timer.md, "What is open").
    jmh 17 $J17 'ScheduleBenchmark.scheduleCancel$' -t 16 -p pool=stealpool,stpe
    #    The same storm in plain timing: the timer's backlog (its flow control holds it near
    #    16,384 a stripe, at worst about twice that) and its CPU per entry, every 250 ms, 4 s.
    if (($(left) >= 15)); then
        echo "### TimerCancelStormProbe 16 4, $label" | tee -a "$out/storm.txt"
        timeout $(($(left) + 5)) $J17 -Xms1g -Xmx1g $jvm_args -cp "$KIT/lab.jar" \
            io.github.stealpool.bench.TimerCancelStormProbe 16 4 2>&1 | grep "Mops/s" | tee -a "$out/storm.txt"
    fi
    if [[ -n $J25 ]]; then
        jmh 25 "$J25" 'ScheduleBenchmark.(scheduleBurst|scheduleCancel|lateness)$' -p pool=stealpool,stpe,forkjoin
    fi
fi
# 6. Lateness alone, not among the default steps: for an A/B of the timer's hand-over
#    (STEPS=lateness; docs/lab/README.md, "Lab switches").
if want lateness; then
    jmh 17 $J17 'ScheduleBenchmark.lateness$' -p pool=stealpool,stpe
    if [[ -n $J25 ]]; then
        jmh 25 "$J25" 'ScheduleBenchmark.lateness$' -p pool=stealpool,stpe
    fi
fi
echo "done in $((SECONDS - start)) s" | tee -a "$log"
