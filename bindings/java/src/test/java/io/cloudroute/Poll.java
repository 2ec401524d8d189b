package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

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
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, what);
      LockSupport.parkNanos(10_000_000L);
    }
  }
}
