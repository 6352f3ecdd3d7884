package io.github.stealpool.bench;

import java.util.Map;
import java.util.TreeMap;

/**
 * One JMH result reduced to what the report needs: which benchmark, with which parameters, and
 * the figures (lower is better for every one of them).
 *
 * @param benchmark  simple class name and method, such as {@code SubmitBenchmark.submitAll}
 * @param params     the JMH parameters
 * @param unit       unit of {@code score}, {@code p50} and {@code p99}
 * @param score      the primary score (average time), or NaN
 * @param p50        median of a sampled benchmark, else NaN
 * @param p99        99th percentile of a sampled benchmark, else NaN
 * @param cpuPercent idle cost benchmark: CPU used while idle, as % of a core, else NaN
 */
record Measurement(String benchmark, Map<String, String> params, String unit, double score,
                   double p50, double p99, double cpuPercent) {

    Measurement {
        params = new TreeMap<>(params);
    }

    /** The parameters that name what ran, as the benchmarks call them. */
    static final java.util.Set<String> CONTENDER_KEYS = java.util.Set.of("pool", "impl", "how");

    /** What ran: the value of {@code pool}, {@code impl} or {@code how}. */
    String contender() {
        for (String k : CONTENDER_KEYS) {
            String v = params.get(k);
            if (v != null) {
                return v;
            }
        }
        return "?";
    }

    /** The parameters other than the contender, as {@code k=v, ...}. */
    String caseParams() {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, String> e : params.entrySet()) {
            if (CONTENDER_KEYS.contains(e.getKey())) {
                continue;
            }
            if (b.length() > 0) {
                b.append(", ");
            }
            b.append(e.getKey()).append('=').append(e.getValue());
        }
        return b.toString();
    }
}
