#!/usr/bin/env python3
"""Writes tests/vectors/family_keys.json from the REAL Java classes on Maven Central.

Each case is a (family, key) pair of Java Strings and the decimal text of
  jedis:         new redis.clients.jedis.util.MurmurHash().hash(family + ":" + key)
                 (Hashing.MURMUR_HASH of Jedis 3.10.0: MurmurHash64A, seed 0x1234ABCD)
  commons-codec: org.apache.commons.codec.digest.MurmurHash2.hash64(family + ":" + key)
                 (MurmurHash64A, seed 0xe17a1465)
Both classes turn the String into its UTF-8 bytes (Jedis's SafeEncoder,
commons-codec's StringUtils.getBytesUtf8), whatever the platform charset: the
driver runs with file.encoding=ISO-8859-1 to prove it. The pairs are therefore
stored as UTF-8 hex, and the C, C++ and Python tests hash those bytes. Strings
with unpaired surrogates have no UTF-8 form and are not generated (Java would
hash '?' in their place).

The driver is compiled with javac against the jars (fetched with
`mvn dependency:get` into ~/.m2 when missing); every commons-codec version in
CODEC_VERSIONS must give the same values, or the script fails. Needs a JDK and
Maven; not part of the test suite (the tests read the JSON).

    python3 tests/vectors/gen/family_key_vectors.py            # rewrite the JSON
    python3 tests/vectors/gen/family_key_vectors.py --check    # compare, write nothing
"""
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "family_keys.json")
JEDIS = ("redis.clients", "jedis", "3.10.0")
CODEC_VERSIONS = ("1.16.0", "1.17.1")
CASES = 3000
SEED = 20261130

DRIVER = r"""
import java.io.*;
import java.nio.charset.StandardCharsets;

public class Driver {
  static byte[] unhex(String h) {
    byte[] b = new byte[h.length() / 2];
    for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    return b;
  }
  // stdin: "FAMILYHEX KEYHEX" lines (UTF-8 hex; "-" = empty); stdout: "JEDIS CODEC" lines.
  public static void main(String[] a) throws IOException {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    redis.clients.jedis.util.MurmurHash jedis = new redis.clients.jedis.util.MurmurHash();
    StringBuilder out = new StringBuilder();
    for (String line; (line = in.readLine()) != null; ) {
      String[] f = line.split(" ", -1);
      String family = new String(unhex(f[0]), StandardCharsets.UTF_8);
      String key = new String(unhex(f[1].equals("-") ? "" : f[1]), StandardCharsets.UTF_8);
      String text = family + ":" + key;
      out.append(jedis.hash(text)).append(' ')
         .append(org.apache.commons.codec.digest.MurmurHash2.hash64(text)).append('\n');
    }
    System.out.print(out);
  }
}
"""


def jar(group, artifact, version):
    path = os.path.expanduser("~/.m2/repository/%s/%s/%s/%s-%s.jar"
                              % (group.replace(".", "/"), artifact, version, artifact, version))
    if not os.path.exists(path):
        subprocess.run(["mvn", "-q", "dependency:get", "-Dtransitive=false",
                        "-Dartifact=%s:%s:%s" % (group, artifact, version)], check=True)
    return path


def text(rng, alphabet, n):
    return "".join(rng.choice(alphabet) for _ in range(n))


def pairs():
    """Deterministic (family, key) Strings: ASCII, Latin-1, CJK and astral
    characters (4 UTF-8 bytes, a surrogate pair in Java), every tail length of
    the 8-byte blocks, empty keys, and keys past the core's 256-byte stack
    buffer."""
    rng = random.Random(SEED)
    ascii_ = [chr(c) for c in range(0x20, 0x7F)]
    wide = ascii_ + ["\u00e9", "\u00df", "\u00ff", "\u4e2d", "\u6587", "\u20ac", "\U0001f600", "\U00010348"]
    families = ["user", "order", "session", "cart", "f", "biz_1", "caf\u00e9", "\u7528\u6237"]
    out = [("user", ""), ("user", ":"), ("a", "b:c")]
    while len(out) < CASES:
        fam = rng.choice(families) if rng.random() < 0.7 else text(rng, [c for c in wide if c != ":"],
                                                                    rng.randint(1, 12))
        r = rng.random()
        n = rng.randint(0, 24) if r < 0.7 else rng.randint(25, 80) if r < 0.98 else rng.randint(250, 330)
        out.append((fam, text(rng, wide if rng.random() < 0.5 else ascii_, n)))
    return out


def run(cmd, cases):
    stdin = "".join("%s %s\n" % (f.encode().hex(), k.encode().hex() or "-") for f, k in cases)
    got = subprocess.run(cmd, input=stdin, capture_output=True, text=True, check=True).stdout.split("\n")
    return [line.split(" ") for line in got[:len(cases)]]


def main():
    check = "--check" in sys.argv[1:]
    cases = pairs()
    results = {}
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "Driver.java"), "w") as f:
            f.write(DRIVER)
        jedis_jar = jar(*JEDIS)
        for version in CODEC_VERSIONS:
            cp = jedis_jar + os.pathsep + jar("commons-codec", "commons-codec", version)
            d = os.path.join(work, version)
            os.makedirs(d)
            subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", d, os.path.join(work, "Driver.java")],
                           check=True)
            results[version] = run(["java", "-Dfile.encoding=ISO-8859-1", "-cp", cp + os.pathsep + d,
                                    "Driver"], cases)
    first = results[CODEC_VERSIONS[0]]
    for version, got in results.items():
        if got != first:
            print("commons-codec %s and %s disagree" % (CODEC_VERSIONS[0], version), file=sys.stderr)
            return 1
    doc = {
        "about": "Family keys (stored key = decimal 64-bit MurmurHash of family + ':' + key) printed by "
                 "the real Java classes: jedis = Jedis %s MurmurHash.hash(String) (seed 0x1234ABCD), "
                 "commons_codec = commons-codec %s MurmurHash2.hash64(String) (seed 0xe17a1465); both "
                 "hash the String's UTF-8 bytes. family and key are UTF-8 hex. Generated by "
                 "tests/vectors/gen/family_key_vectors.py." % (JEDIS[2], " and ".join(CODEC_VERSIONS)),
        "fields": ["family_hex", "key_hex", "jedis", "commons_codec"],
        "cases": [[f.encode().hex(), k.encode().hex(), j, c] for (f, k), (j, c) in zip(cases, first)],
    }
    # One case a line: small diffs, readable.
    body = "{\n" + ",\n".join(
        "%s: %s" % (json.dumps(k), json.dumps(v)) for k, v in doc.items() if k != "cases")
    body += ',\n"cases": [\n' + ",\n".join(json.dumps(c) for c in doc["cases"]) + "\n]}\n"
    if check:
        with open(OUT) as f:
            same = f.read() == body
        print("%d family keys from real Jedis and commons-codec %s: %s"
              % (len(cases), " and ".join(CODEC_VERSIONS), "same as the JSON" if same else "DIFFERENT"))
        return 0 if same else 1
    with open(OUT, "w") as f:
        f.write(body)
    print("wrote %d cases to %s" % (len(cases), os.path.relpath(OUT)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
