package io.github.stealpool.internal;

import io.github.stealpool.RangeChunk;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.LongBinaryOperator;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongToDoubleFunction;
import java.util.function.LongUnaryOperator;

/** The kinds of range loop the pool offers, each a {@link RangeLoop} with its own body. */
public final class RangeLoops {

    private RangeLoops() {
    }

    public static RangeLoop forEachInt(long minBatch, long maxBatch, IntConsumer body) {
        return new RangeLoop(minBatch, maxBatch) {
            @Override
            protected void process(StealableRange r, long lo, long hi) {
                for (int i = (int) lo, end = (int) hi; i < end; i++) {
                    body.accept(i);
                }
            }
        };
    }

    public static RangeLoop forEachLong(long minBatch, long maxBatch, LongConsumer body) {
        return new RangeLoop(minBatch, maxBatch) {
            @Override
            protected void process(StealableRange r, long lo, long hi) {
                for (long i = lo; i < hi; i++) {
                    body.accept(i);
                }
            }
        };
    }

    public static RangeLoop forChunks(long minBatch, long maxBatch, RangeChunk body) {
        return new RangeLoop(minBatch, maxBatch) {
            @Override
            protected void process(StealableRange r, long lo, long hi) {
                body.accept(lo, hi);
            }
        };
    }

    /**
     * An order-preserving reduction to an object; {@link #result()} after the run. The mapper
     * takes a {@code long} index; int forms wrap theirs (the combiner's call costs more than the
     * extra one).
     */
    public static final class Reduce<T> extends RangeLoop {
        private final T identity;
        private final LongFunction<? extends T> mapper;
        private final BinaryOperator<T> combiner;
        private T result;

        public Reduce(long minBatch, long maxBatch, T identity, LongFunction<? extends T> mapper,
                      BinaryOperator<T> combiner) {
            super(minBatch, maxBatch);
            this.identity = identity;
            this.mapper = mapper;
            this.combiner = combiner;
            this.result = identity;
        }

        @Override
        @SuppressWarnings("unchecked")
        protected void process(StealableRange r, long lo, long hi) {
            T a = r.touched ? (T) r.acc : identity;
            for (long i = lo; i < hi; i++) {
                a = combiner.apply(a, mapper.apply(i));
            }
            r.acc = a;
            r.touched = true;
        }

        @Override
        @SuppressWarnings("unchecked")
        protected void windowDone(List<StealableRange> inOrder) {
            for (StealableRange r : inOrder) {
                if (r.touched) {
                    result = combiner.apply(result, (T) r.acc);
                }
            }
        }

        public T result() {
            return result;
        }
    }

    /** An order-preserving reduction to a long. */
    public static final class ReduceLong extends RangeLoop {
        private final long identity;
        private final LongUnaryOperator mapper;
        private final LongBinaryOperator combiner;
        private long result;

        public ReduceLong(long minBatch, long maxBatch, long identity, LongUnaryOperator mapper,
                          LongBinaryOperator combiner) {
            super(minBatch, maxBatch);
            this.identity = identity;
            this.mapper = mapper;
            this.combiner = combiner;
            this.result = identity;
        }

        @Override
        protected void process(StealableRange r, long lo, long hi) {
            long a = r.touched ? r.accLong : identity;
            for (long i = lo; i < hi; i++) {
                a = combiner.applyAsLong(a, mapper.applyAsLong(i));
            }
            r.accLong = a;
            r.touched = true;
        }

        @Override
        protected void windowDone(List<StealableRange> inOrder) {
            for (StealableRange r : inOrder) {
                if (r.touched) {
                    result = combiner.applyAsLong(result, r.accLong);
                }
            }
        }

        public long result() {
            return result;
        }
    }

    /** An order-preserving reduction to a double. */
    public static final class ReduceDouble extends RangeLoop {
        private final double identity;
        private final LongToDoubleFunction mapper;
        private final DoubleBinaryOperator combiner;
        private double result;

        public ReduceDouble(long minBatch, long maxBatch, double identity, LongToDoubleFunction mapper,
                            DoubleBinaryOperator combiner) {
            super(minBatch, maxBatch);
            this.identity = identity;
            this.mapper = mapper;
            this.combiner = combiner;
            this.result = identity;
        }

        @Override
        protected void process(StealableRange r, long lo, long hi) {
            double a = r.touched ? r.accDouble : identity;
            for (long i = lo; i < hi; i++) {
                a = combiner.applyAsDouble(a, mapper.applyAsDouble(i));
            }
            r.accDouble = a;
            r.touched = true;
        }

        @Override
        protected void windowDone(List<StealableRange> inOrder) {
            for (StealableRange r : inOrder) {
                if (r.touched) {
                    result = combiner.applyAsDouble(result, r.accDouble);
                }
            }
        }

        public double result() {
            return result;
        }
    }
}
