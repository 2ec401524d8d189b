#!/usr/bin/env python3
"""Checks tests/vectors/rings.json against REAL Jedis jars from Maven Central.

Jedis 3.x (redis.clients.jedis.util.Sharded, "name*n" point names) decides the
jedis3 rings, Jedis 2.9 (redis.clients.util.Sharded, "name*weight+n"; Jedis 2.10 already uses "name*n") the
jedis2 rings; both decide the Hashing.MURMUR_HASH / Hashing.MD5 values. The
jars are fetched with Maven (`mvn dependency:get`) into ~/.m2 when missing;
the Java driver is generated here and compiled with javac. Needs a JDK and
Maven; not part of the test suite (the C, Python and JVM tests read the JSON).

    python3 tests/vectors/gen/check_real_jedis.py
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
JARS = {"jedis3": ("3.10.0", "redis.clients.jedis.util"), "jedis2": ("2.9.0", "redis.clients.util")}

DRIVER = r"""
import PKG.Hashing;
import PKG.ShardInfo;
import PKG.Sharded;
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.util.*;

public class Driver {
  static final class S extends ShardInfo<String> {
    final String name;
    S(int weight, String name) { super(weight); this.name = name; }
    public String getName() { return name; }
    protected String createResource() { return null; }
  }
  static byte[] unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return b;
  }
  // stdin: "ring HASH TAGS SPEC" then key hex lines ("-" = empty), or "hash" then key hex lines.
  public static void main(String[] a) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String[] head = in.readLine().split(" ", -1);
    StringBuilder out = new StringBuilder();
    if (head[0].equals("hash")) {
      for (String line; (line = in.readLine()) != null; ) {
        byte[] k = unhex(line.equals("-") ? "" : line);
        out.append(Hashing.MURMUR_HASH.hash(k)).append(' ').append(Hashing.MD5.hash(k)).append('\n');
      }
    } else {
      Hashing h = head[1].equals("md5") ? Hashing.MD5 : Hashing.MURMUR_HASH;
      boolean tags = head[2].equals("tags");
      List<S> shards = new ArrayList<>();
      for (String item : head[3].split(",")) {
        int eq = item.lastIndexOf('=');
        String name = item.substring(0, eq);
        shards.add(new S(Integer.parseInt(item.substring(eq + 1)), name.isEmpty() ? null : name));
      }
      Sharded<String, S> ring = tags ? new Sharded<>(shards, h, Sharded.DEFAULT_KEY_TAG_PATTERN)
                                     : new Sharded<>(shards, h);
      for (String line; (line = in.readLine()) != null; ) {
        byte[] k = unhex(line.equals("-") ? "" : line);
        // Jedis applies key tags to String keys only.
        S s = tags ? ring.getShardInfo(new String(k, StandardCharsets.UTF_8)) : ring.getShardInfo(k);
        out.append(shards.indexOf(s)).append('\n');
      }
    }
    System.out.print(out);
  }
}
"""


def jar(version):
    path = os.path.expanduser("~/.m2/repository/redis/clients/jedis/%s/jedis-%s.jar" % (version, version))
    if not os.path.exists(path):
        subprocess.run(["mvn", "-q", "dependency:get", "-Dartifact=redis.clients:jedis:" + version,
                        "-Dtransitive=false"], check=True)
    return path


def build(work, naming):
    version, pkg = JARS[naming]
    d = os.path.join(work, naming)
    os.makedirs(d)
    with open(os.path.join(d, "Driver.java"), "w") as f:
        f.write(DRIVER.replace("PKG", pkg))
    cp = jar(version)
    subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", d, os.path.join(d, "Driver.java")], check=True)
    return ["java", "-cp", cp + os.pathsep + d, "Driver"]


def run(cmd, head, keys):
    stdin = head + "\n" + "".join((k or "-") + "\n" for k in keys)
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")


def main():
    with open(os.path.join(HERE, "..", "rings.json")) as f:
        vectors = json.load(f)
    bad = checked = 0
    with tempfile.TemporaryDirectory() as work:
        drivers = {n: build(work, n) for n in JARS}
        hashes = vectors["jedis_hash"]
        for naming in JARS:
            lines = run(drivers[naming], "hash", [h["key_hex"] for h in hashes])
            for h, line in zip(hashes, lines):
                checked += 1
                if line != "%d %d" % (h["murmur"], h["md5"]):
                    bad += 1
                    print("MISMATCH jedis_hash %s (%s): %s" % (h["key_hex"], naming, line), file=sys.stderr)
        for case in vectors["rings"]:
            if case["algo"] != "jedis":
                continue
            spec = ",".join("%s=%d" % (s["name"] or "", s["weight"]) for s in case["shards"])
            head = "ring %s %s %s" % (case["hash"], "tags" if case["key_tags"] else "notags", spec)
            got = run(drivers[case.get("naming", "jedis3")], head, [k["key_hex"] for k in case["keys"]])
            for k, line in zip(case["keys"], got):
                checked += 1
                if line != str(k["shard"]):
                    bad += 1
                    print("MISMATCH %r key %s: real Jedis says %s, vector says %d"
                          % (case["name"], k["key_hex"], line, k["shard"]), file=sys.stderr)
    print("%d values checked against real Jedis %s, %d differ"
          % (checked, " and ".join(v for v, _ in JARS.values()), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
