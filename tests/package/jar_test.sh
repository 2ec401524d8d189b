#!/usr/bin/env bash
# The jar of scripts/package.sh, as a user gets it:
# - the native library inside (native/linux-x86_64/libcloudroute_jni.so) needs no
#   libhiredis (linked statically, as are OpenSSL and libstdc++) and nothing
#   unresolved (tests/package/arm64_test.sh checks native/linux-aarch64);
# - Java with the jar alone on the class path (JarSmoke.java, run as a source file);
# - Clojure (cloudroute.core from the jar) with only Clojure's own jars beside it,
#   taken from the Maven repository tests/java/run.sh fills (.m2/);
# - the adapters' jar (cloudroute-clients) holds the Jedis provider and the
#   Lettuce ReadFrom; both javadoc jars document the public classes; the poms
#   beside the jars name the same coordinates as the README's install:install-file.
#
#   tests/package/jar_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
jar=$(ls "$dist"/cloudroute-[0-9]*.jar | grep -v -e '-javadoc')
reply=$root/examples/two-clouds.cluster-slots.resp
work=$(mktemp -d /tmp/cr-jarpkg.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; echo "$passed passed, 1 failed"; exit 1; }

(cd "$work" && jar xf "$jar" native)
so=$work/native/linux-x86_64/libcloudroute_jni.so
[[ -f $so ]] || fail "no native/linux-x86_64/libcloudroute_jni.so in $(basename "$jar")"
deps=$(ldd "$so")
echo "$deps" | sed 's|^|   jar ldd: |'
! grep -q 'not found' <<<"$deps" || fail "libcloudroute_jni.so: unresolved libraries"
! grep -q libhiredis <<<"$deps" || fail "libcloudroute_jni.so needs libhiredis"
# hiredis is inside (its reader is in the symbol table), but not exported.
grep -q ' redisReaderCreate$' <<<"$(readelf -Ws "$so")" || fail "hiredis is not linked into libcloudroute_jni.so"
! grep -q ' redisReaderCreate$' <<<"$(readelf -W --dyn-syms "$so")" || fail "hiredis symbols exported"
ok "native library in the jar: hiredis inside, no libhiredis, nothing unresolved ($(du -k "$so" | cut -f1) KiB)"

out=$(cd "$work" && java -cp "$jar" "$root/tests/package/JarSmoke.java" "$reply") || fail "java -cp $(basename "$jar")"
echo "   $out"
ok "java with the jar alone on the class path"

# Clojure and the two libraries its pom names (spec.alpha, core.specs.alpha).
clj_version=$(sed -n 's|.*<clojure.version>\(.*\)</clojure.version>.*|\1|p' "$root/bindings/java/pom.xml")
clj_dir=$root/.m2/org/clojure
clj_pom=$clj_dir/clojure/$clj_version/clojure-$clj_version.pom
[[ -f $clj_pom ]] || fail "Clojure $clj_version not in .m2/: run tests/java/run.sh (or scripts/package.sh jar) first"
cp=$jar:$clj_dir/clojure/$clj_version/clojure-$clj_version.jar
for lib in spec.alpha core.specs.alpha; do
  v=$(grep -A1 "<artifactId>$lib</artifactId>" "$clj_pom" | sed -n 's|.*<version>\(.*\)</version>.*|\1|p')
  [[ -f $clj_dir/$lib/$v/$lib-$v.jar ]] || fail "$lib $v not in .m2/"
  cp+=:$clj_dir/$lib/$v/$lib-$v.jar
done
out=$(cd "$work" && java -cp "$cp" clojure.main "$root/tests/package/jar_smoke.clj" "$reply") || fail "clojure.main"
echo "   $out"
ok "clojure with the jar and Clojure $clj_version on the class path"
v=$(basename "$jar" .jar)
v=${v#cloudroute-}
clients=$dist/cloudroute-clients-$v.jar
[[ -f $clients ]] || fail "no cloudroute-clients-$v.jar in $dist"
members=$(jar tf "$clients")
for c in io/cloudroute/jedis/CloudRouteClusterProvider.class io/cloudroute/lettuce/CloudRouteReadFrom.class; do
  grep -qx "$c" <<<"$members" || fail "cloudroute-clients-$v.jar lacks $c"
done
ok "adapters' jar: the Jedis provider and the Lettuce ReadFrom"
for doc in "cloudroute-$v-javadoc.jar io/cloudroute/Client.html" \
  "cloudroute-clients-$v-javadoc.jar io/cloudroute/jedis/CloudRouteClusterProvider.html"; do
  read -r f page <<<"$doc"
  [[ -f $dist/$f ]] || fail "no $f in $dist"
  members=$(jar tf "$dist/$f")
  grep -qx index.html <<<"$members" && grep -qx "$page" <<<"$members" || fail "$f lacks index.html or $page"
done
ok "javadoc jars: the binding's and the adapters' API reference"
for a in cloudroute cloudroute-clients; do
  pom=$dist/$a-$v.pom
  [[ -f $pom ]] || fail "no $a-$v.pom in $dist"
  grep -q "<artifactId>$a</artifactId>" "$pom" && grep -q "<version>$v</version>" "$pom" ||
    fail "$a-$v.pom does not name io.cloudroute:$a:$v"
done
ok "poms beside the jars: io.cloudroute:cloudroute:$v, io.cloudroute:cloudroute-clients:$v"
echo "$passed passed, 0 failed"
