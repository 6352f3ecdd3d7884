/**
 * The pool's JDK Flight Recorder events, named {@code stealpool.*} and filed under the
 * {@code stealpool} category: a long task ({@link io.github.stealpool.internal.jfr.TaskRunEvent}),
 * a blocking call and the spare thread it got
 * ({@link io.github.stealpool.internal.jfr.BlockingCallEvent}), a submission refused, run by its
 * caller or held back at the submission bound
 * ({@link io.github.stealpool.internal.jfr.SubmissionRefusedEvent},
 * {@link io.github.stealpool.internal.jfr.CallerRanEvent},
 * {@link io.github.stealpool.internal.jfr.SubmissionHeldBackEvent}), and the pool's shutdown and
 * termination ({@link io.github.stealpool.internal.jfr.PoolShutdownEvent},
 * {@link io.github.stealpool.internal.jfr.PoolTerminatedEvent}).
 *
 * <p>Data only: {@code io.github.stealpool.internal.FlightEvents} and the task path in
 * {@code Scheduler.runTask} fill and commit them, and only while a recording has the event
 * enabled. Not exported: JFR opens this package to itself when it registers an event, so the
 * classes need no export, and the engine package stays closed. Each class's defaults
 * ({@code @Enabled}, {@code @Threshold}, {@code @StackTrace}) are the values of the shipped
 * {@code stealpool.jfc}, so a recording that does not name these events (JFR's
 * {@code default} profile) records them as that file does, except that TaskRun is disabled
 * there: it costs every task two clock reads while enabled. docs/flight-recorder.md is the
 * user's guide.
 */
package io.github.stealpool.internal.jfr;
