package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Bounded polling for tests that wait on another thread, process or server: instead of sleeping a
 * fixed time and then asserting, poll the condition until it holds or the bound passes.
 */
final class Poll {
  private Poll() {}

  /** Calls done every 10 ms until it returns true; fails the test with what after 10 s. */
  static void until(BooleanSupplier done, String what) {
    until(done, Duration.ofSeconds(10), what);
  }

  /** Calls done every 10 ms until it returns true; fails the test with what after timeout. */
  static void until(BooleanSupplier done, Duration timeout, String what) {
    until(done, timeout, () -> what);
  }

  /**
   * As {@link #until(BooleanSupplier, Duration, String)}; what is asked for only when the bound
   * passed (a message that describes the state the test gave up in).
   */
  static void until(BooleanSupplier done, Duration timeout, Supplier<String> what) {
    assertTrue(holds(done, timeout), what);
  }

  /**
   * Calls done every 10 ms until it returns true (true) or timeout passed (false, after one last
   * call): for a wait whose outcome a later assertion judges.
   */
  static boolean holds(BooleanSupplier done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() >= deadline) return done.getAsBoolean();
      LockSupport.parkNanos(10_000_000L);
    }
    return true;
  }
}
