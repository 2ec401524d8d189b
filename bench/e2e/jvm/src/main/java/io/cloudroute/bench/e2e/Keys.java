package io.cloudroute.bench.e2e;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/** The keys driver.py loads ("e2e:0" .. "e2e:N-1") and a request's random choice of them. */
final class Keys {
  private Keys() {}

  /** fanout distinct keys of the nkeys loaded, at random (driver.py: rng.sample). */
  static List<String> sample(Random rng, int nkeys, int fanout) {
    Set<Integer> seen = new HashSet<>();
    List<String> out = new ArrayList<>(fanout);
    while (out.size() < fanout) {
      int i = rng.nextInt(nkeys);
      if (seen.add(i)) out.add("e2e:" + i);
    }
    return out;
  }
}
