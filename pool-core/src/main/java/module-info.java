/**
 * stealpool: a work-stealing thread pool with a fork/join API and adaptive range loops.
 *
 * <p>Exports the API package only. {@code io.github.stealpool.internal} (deques, the scheduler,
 * the idle protocol) stays inside the module, so code on the module path cannot depend on it.
 */
module io.github.stealpool {
    requires org.jctools.core.jdk11; // the injection queue; brings org.jctools.core with it
    requires org.slf4j;
    requires jdk.jfr; // the Flight Recorder events (package internal.jfr, not exported: JFR opens it itself)

    exports io.github.stealpool;
}
