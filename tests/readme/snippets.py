#!/usr/bin/env python3
"""The examples of README.md and docs/guide.md, run or compared so that none can rot.

Every fenced block of those files (DOCS) sits under an HTML comment naming it:

    <!-- snippet: NAME [mirrored-in PATH] -->

and a block without one fails the check (a new example needs a test). A name is used once
across the files, so an example may move from one to the other and keep its test. By NAME:

  c-*        compiled against the C API and run (c-live, c-pubsub against a live cluster)
  cli-*      each line run with `cloudroute` the built CLI (cli-live, cli-pubsub: live cluster)
  python-*   run by tests/python/test_readme.py in the Python stage (python-client,
             python-redis-py and python-pubsub against its live cluster, python-sentinel and
             python-sharded against servers of their own)
  java-*, clojure*   mirrored: the same lines (indentation aside) are in PATH, a test of
             the JVM stage (tests/java/run.sh) that compiles and runs them
  install-*  the commands name artifacts scripts/package.sh builds, with the version of
             cloudroute.h; tests/package/*_test.sh install those artifacts the same way
  commands, harness   the two commands and the harness command (checked against scripts/)
  layout     every directory it names exists, and every top-level one is named
  usage-cli  the CLI's synopsis: every command it names is in the CLI's usage (tools/cloudroute)
  excerpt-c-*  a fragment of C, not a program: every cr_/CR_ name it uses is in cloudroute.h
  output-*   a captured output, shown only

The check also fails when a tracked Markdown file holds a snippet marker but was not given,
and when a relative link of a given file (its #anchor included) leads nowhere.

The live examples connect to 127.0.1.1:7001, the first node of
`scripts/redis-harness.sh cluster DIR` on its default ports; tests put their own cluster's
first node in its place, and nothing else is changed (seed()).

  snippets.py check DOC...                           the markers, mirrors, install names, links
  snippets.py run-offline DOC... LIBDIR CLI          c-route, cli-offline and cli-reshard
  snippets.py run-live DOC... LIBDIR CLI ENV_FILE    c-live, c-pubsub, cli-live and cli-pubsub
                                                     (a harness cluster.env)
(DOC: README.md, docs/guide.md — every file of DOCS; LIBDIR: where libcloudroute.so is;
CLI: the cloudroute tool.)
"""

from __future__ import annotations

import os
import pathlib
import re
import shlex
import subprocess
import sys
import tempfile
from typing import Dict, Iterable, List, Tuple

REPO = pathlib.Path(__file__).resolve().parents[2]
# The files whose fenced blocks are examples (repository-relative): the README shows one per
# language, the guide the rest.
DOCS = ("README.md", "docs/guide.md")
MARK = re.compile(r"^<!-- snippet: ([a-z0-9-]+)(?: mirrored-in (\S+))? -->$")
SEED_HOST, SEED_PORT = "127.0.1.1", 7001


class Snippet:
    def __init__(self, name: str, lang: str, text: str, line: int, mirror: str | None, doc: str) -> None:
        self.name, self.lang, self.text, self.line, self.mirror, self.doc = name, lang, text, line, mirror, doc

    @property
    def where(self) -> str:
        """file:line of the block's first line, for messages."""
        return f"{self.doc}:{self.line}"


def relative(path: pathlib.Path) -> str:
    path = path.resolve()
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def extract(readme: pathlib.Path) -> Dict[str, Snippet]:
    """One file's fenced blocks by name; fails on a block without a marker,
    a marker without a block, or a name used twice."""
    doc = relative(readme)
    lines = readme.read_text().split("\n")
    out: Dict[str, Snippet] = {}
    pending: Tuple[str, str | None, int] | None = None
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if m:
            if pending:
                raise SystemExit(f"{readme}:{pending[2]}: snippet '{pending[0]}' has no code block")
            pending = (m.group(1), m.group(2), i + 1)
        elif lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            end = i + 1
            while end < len(lines) and not lines[end].startswith("```"):
                end += 1
            if end == len(lines):
                raise SystemExit(f"{readme}:{i + 1}: unclosed code block")
            if not pending or pending[2] != i:
                raise SystemExit(f"{readme}:{i + 1}: a code block without '<!-- snippet: NAME -->' on the line "
                                 "before it: every example is run by a test (tests/readme/snippets.py)")
            name, mirror, _ = pending
            if name in out:
                raise SystemExit(f"{readme}:{i}: snippet name '{name}' used twice")
            out[name] = Snippet(name, lang, "\n".join(lines[i + 1:end]) + "\n", i + 2, mirror, doc)
            pending = None
            i = end
        i += 1
    if pending:
        raise SystemExit(f"{readme}:{pending[2]}: snippet '{pending[0]}' has no code block")
    return out


def extract_all(docs: Iterable[pathlib.Path]) -> Dict[str, Snippet]:
    """The fenced blocks of every file by name (extract()); fails on a name used in two files."""
    out: Dict[str, Snippet] = {}
    for doc in docs:
        for name, s in extract(doc).items():
            if name in out:
                raise SystemExit(f"{s.where}: snippet name '{name}' already used at {out[name].where}")
            out[name] = s
    return out


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to '-'."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: pathlib.Path) -> set[str]:
    """The anchors of a Markdown file's headings (outside code blocks; repeats get -1, -2 …)."""
    out: set[str] = set()
    repeats: Dict[str, int] = {}
    fenced = False
    for line in path.read_text().split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6} (.*)", line)):
            base = slug(m.group(1))
            n = repeats.get(base, 0)
            out.add(f"{base}-{n}" if n else base)
            repeats[base] = n + 1
    return out


def check_links(doc: pathlib.Path) -> None:
    """Every relative link of doc leads to a file of the repository, and its #anchor to a heading."""
    fenced = False
    for n, line in enumerate(doc.read_text().split("\n"), 1):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (doc.parent / path).resolve() if path else doc
            if not dest.exists():
                fail(f"{relative(doc)}:{n}: the link {target} leads to no file")
            if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                fail(f"{relative(doc)}:{n}: the link {target}: {relative(dest)} has no heading #{anchor}")


def seed(text: str, host: str, port: int, *, java: bool = False, clojure: bool = False) -> str:
    """The example's seed 127.0.1.1:7001 replaced by a test cluster's first node
    (Java/Clojure mirrors: by the test's constants SEEDS, SEED_HOST, SEED_PORT / seeds)."""
    if java:
        return text.replace(f'"{SEED_HOST}:{SEED_PORT}"', "SEEDS").replace(
            f'"{SEED_HOST}", {SEED_PORT}', "SEED_HOST, SEED_PORT")
    if clojure:
        return text.replace(f'"{SEED_HOST}:{SEED_PORT}"', "seeds")
    return (text.replace(f"{SEED_HOST}:{SEED_PORT}", f"{host}:{port}")
            .replace(f'host="{SEED_HOST}", port={SEED_PORT}', f'host="{host}", port={port}'))


def first_seed(env_file: pathlib.Path) -> Tuple[str, int]:
    for line in env_file.read_text().splitlines():
        if line.startswith("SEEDS="):
            host, port = line[len("SEEDS="):].split(",")[0].rsplit(":", 1)
            return host, int(port)
    raise SystemExit(f"{env_file}: no SEEDS=")


def fail(msg: str) -> None:
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def header_version() -> str:
    text = (REPO / "capi/include/cloudroute.h").read_text()
    return ".".join(re.search(rf"#define CR_VERSION_{p} (\d+)", text).group(1)  # type: ignore[union-attr]
                    for p in ("MAJOR", "MINOR", "PATCH"))


def stripped(text: str) -> List[str]:
    return [ln.strip() for ln in text.strip("\n").split("\n")]


def check(snippets: Dict[str, Snippet], docs: List[pathlib.Path]) -> None:
    readme = "".join(d.read_text() for d in docs)
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    given = {relative(d) for d in docs}
    for md in (f for f in tracked.split("\n") if f.endswith(".md")):
        if md not in given and any(MARK.match(ln) for ln in (REPO / md).read_text().split("\n")):
            fail(f"{md} holds snippet markers but was not given: its examples would go untested "
                 f"(tests/readme/snippets.py's DOCS and its callers)")
    for d in docs:
        check_links(d)
    known = ("c-", "cli-", "python-", "java-", "clojure", "install-", "output-", "excerpt-c-")
    header = (REPO / "capi/include/cloudroute.h").read_text()
    for s in snippets.values():
        if not (s.name.startswith(known) or s.name in ("commands", "harness", "layout", "usage-cli")):
            fail(f"{s.where}: snippet '{s.name}': no test runs this kind (tests/readme/snippets.py)")
        if s.name.startswith("excerpt-c-"):
            for ident in sorted(set(re.findall(r"\b(?:cr|CR)_[A-Za-z0-9_]+\b", s.text))):
                if not re.search(rf"\b{ident}\b", header):
                    fail(f"{s.where}: snippet '{s.name}' uses {ident}, which cloudroute.h does not declare")
        if s.name == "usage-cli":
            usage = (REPO / "tools/cloudroute/main.cpp").read_text()
            for cmd in sorted(set(re.findall(r"\bcloudroute ([a-z][a-z-]*)", s.text))):
                if f'"  {cmd} ' not in usage:
                    fail(f"{s.where}: the synopsis names `cloudroute {cmd}`, which the CLI's usage "
                         f"(tools/cloudroute/main.cpp) does not list")
        if s.name.startswith(("java-", "clojure")):
            if not s.mirror:
                fail(f"{s.where}: snippet '{s.name}' needs 'mirrored-in PATH' (a test of the JVM stage)")
            want = stripped(seed(s.text, SEED_HOST, SEED_PORT, java=s.name.startswith("java-"),
                                 clojure=s.name.startswith("clojure")))
            have = stripped((REPO / s.mirror).read_text())
            if not any(have[i:i + len(want)] == want for i in range(len(have) - len(want) + 1)):
                fail(f"{s.where}: snippet '{s.name}' differs from its test {s.mirror}: "
                     f"the test must hold these lines (indentation aside; the seed as SEEDS / "
                     f"SEED_HOST, SEED_PORT / seeds):\n" + "\n".join(want))
    # The layout: what it names exists; no top-level directory is left out.
    layout = snippets["layout"].text
    named = set(re.findall(r"^([a-z]+)/ ", layout, re.M))
    top = {f.split("/")[0] for f in tracked.split("\n") if "/" in f and not f.startswith(".")}
    if named != top:
        fail(f"the layout names {sorted(named)}, the repository's top-level directories are {sorted(top)}")
    for sub in re.findall(r"\b((?:bindings|tests|packaging)/[a-z/]+)/?", layout):
        if not (REPO / sub).is_dir():
            fail(f"the layout names {sub}, which does not exist")
    for sub in re.findall(r"^\s+([a-z]+)/: ", layout, re.M) + re.findall(r"; ([a-z]+/[a-z]+)/: ", layout):
        if not (REPO / "bindings" / sub).is_dir():
            fail(f"the layout names bindings/{sub}, which does not exist")
    # The two commands and the harness command, as the scripts are.
    cmds = snippets["commands"].text
    for want in ("./scripts/demo.sh", "./scripts/deps.sh && ./scripts/test.sh"):
        if want not in cmds:
            fail(f"snippet 'commands' lacks {want}")
    if "./scripts/deps.sh && ./scripts/test.sh" not in (REPO / ".ci/run").read_text():
        fail(".ci/run no longer runs ./scripts/deps.sh && ./scripts/test.sh: the README's test command")
    harness = (REPO / "scripts/redis-harness.sh").read_text()
    if "default BASE_PORT 7001" not in harness or "n1   127.0.1.1   7001" not in harness:
        fail("scripts/redis-harness.sh's cluster no longer starts at 127.0.1.1:7001: the README's seed")
    if not snippets["harness"].text.startswith("scripts/redis-harness.sh cluster /tmp/cr-cluster "):
        fail("snippet 'harness' is not `scripts/redis-harness.sh cluster /tmp/cr-cluster`")
    # Install commands: the artifacts package.sh makes, the version of the header.
    v = header_version()
    package = (REPO / "scripts/package.sh").read_text()
    names = {
        rf"dist/cloudroute-{v}-cp3\d+-cp3\d+-manylinux_2_28_x86_64\.whl\[redis\]": "manylinux_2_28_x86_64",
        rf"dist/libcloudroute0_{v}_amd64\.deb": "libcloudroute0_V_{amd64,arm64}.deb",
        rf"dist/libcloudroute-dev_{v}_amd64\.deb": "libcloudroute-dev_V_{amd64,arm64}.deb",
        rf"dist/cloudroute_{v}_amd64\.deb": "cloudroute_V_{amd64,arm64}.deb",
        rf"dist/cloudroute-{v}\.jar": "cloudroute-V.jar",
        rf"dist/cloudroute-{v}\.pom": "cloudroute-V.pom",
        rf"dist/cloudroute-{v}-javadoc\.jar": "cloudroute-V-javadoc.jar",
        rf"dist/cloudroute-clients-{v}\.jar": "cloudroute-clients-V.jar",
        rf"dist/cloudroute-clients-{v}\.pom": "cloudroute-clients-V.pom",
        rf"dist/cloudroute-clients-{v}-javadoc\.jar": "cloudroute-clients-V-javadoc.jar",
    }
    install = "".join(s.text for s in snippets.values() if s.name.startswith("install-"))
    for pattern, in_package in names.items():
        if not re.search(pattern, install):
            fail(f"the install snippets do not name {pattern}")
        if in_package not in package:
            fail(f"scripts/package.sh does not build {in_package} (the README installs it)")
    for token in re.findall(r"dist/[^\s']+", install):
        if not any(re.fullmatch(p, token) for p in names):
            fail(f"the install snippets name {token}, which scripts/package.sh does not build")
    for coords in (f"io.cloudroute:cloudroute:{v}", f"io.cloudroute:cloudroute-clients:{v}",
                   f'io.cloudroute/cloudroute {{:mvn/version "{v}"}}', f'[io.cloudroute/cloudroute "{v}"]',
                   f"<artifactId>cloudroute</artifactId><version>{v}</version>"):
        if coords not in readme:
            fail(f"the documents lack the coordinates {coords}")
    poms = (("bindings/java/pom.xml", "cloudroute"), ("bindings/java/clients/pom.xml", "cloudroute-clients"))
    for pom, artifact in poms:
        text = (REPO / pom).read_text()
        if not re.search(rf"^  <groupId>io\.cloudroute</groupId>\n  <artifactId>{artifact}</artifactId>\n"
                         rf"(?:  <!--[^\n]*-->\n)?  <version>{re.escape(v)}</version>$", text, re.M):
            fail(f"{pom} is not io.cloudroute:{artifact}:{v}, the README's coordinates")
    clj = re.search(r"<clojure.version>(.*)</clojure.version>", (REPO / "bindings/java/pom.xml").read_text())
    if clj is None or f'org.clojure/clojure {{:mvn/version "{clj.group(1)}"}}' not in readme:
        fail("the documents' deps.edn names another Clojure than bindings/java/pom.xml tests with")
    extras = (REPO / "bindings/python/pyproject.toml").read_text()
    if not re.search(r'^redis = \["redis>=\d+"\]$', extras, re.M):
        fail("bindings/python/pyproject.toml has no `redis` extra (the README's [redis])")
    print(f"ok: {len(snippets)} snippets marked in {len(docs)} files; mirrors, commands, install names, "
          "coordinates and links match")


def compile_run(s: Snippet, lib: pathlib.Path, work: pathlib.Path, expect: str) -> None:
    src = work / f"{s.name}.c"
    src.write_text(s.text)
    exe = work / s.name
    cc = os.environ.get("CC", "cc")
    cmd = [cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", str(REPO / "capi/include"), str(src),
           "-o", str(exe), f"-L{lib}", "-lcloudroute", f"-Wl,-rpath,{lib}"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{s.where}: {s.name} does not compile:\n{' '.join(cmd)}\n{r.stderr}")
    r = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or r.stdout != expect:
        fail(f"{s.where}: {s.name} exited {r.returncode}, printed {r.stdout!r} (want {expect!r}); "
             f"stderr {r.stderr!r}")
    print(f"ok: {s.name} compiles as C99 with -Wall -Wextra -Werror and prints {r.stdout.strip()!r}")


def printed(s: Snippet) -> str:
    """What a C example promises to print: its `/* prints: … */` comment."""
    m = re.search(r"/\* prints: (.*) \*/", s.text)
    if m is None:
        fail(f"{s.where}: {s.name} has no /* prints: … */ comment to check")
    return m.group(1) + "\n"  # type: ignore[union-attr]


def run_cli(s: Snippet, cli: pathlib.Path, host: str, port: int) -> List[Tuple[str, str]]:
    outs = []
    for line in seed(s.text, host, port).strip().split("\n"):
        argv = shlex.split(line, comments=True)
        if argv[0] != "cloudroute":
            fail(f"{s.where}: {s.name}: a line that is not a cloudroute command: {line}")
        r = subprocess.run([str(cli), *argv[1:]], capture_output=True, text=True, cwd=REPO, timeout=60)
        if r.returncode != 0:
            fail(f"{s.where}: `{line}` exited {r.returncode}: {r.stderr}")
        outs.append((r.stdout, r.stderr))
    return outs


def main() -> None:
    if len(sys.argv) < 3:
        fail(__doc__ or "")
    what, args = sys.argv[1], sys.argv[2:]
    n = next((i for i, a in enumerate(args) if not a.endswith(".md")), len(args))
    docs, rest = [pathlib.Path(a) for a in args[:n]], args[n:]
    if not docs:
        fail(f"no DOC given (a .md file)\n{__doc__}")
    snippets = extract_all(docs)
    if what == "check":
        check(snippets, docs)
        return
    if len(rest) < (3 if what == "run-live" else 2):
        fail(__doc__ or "")
    lib, cli = pathlib.Path(rest[0]).resolve(), pathlib.Path(rest[1]).resolve()
    with tempfile.TemporaryDirectory(prefix="cr-readme.") as tmp:
        work = pathlib.Path(tmp)
        if what == "run-offline":
            compile_run(snippets["c-route"], lib, work, printed(snippets["c-route"]))
            (out, _), = run_cli(snippets["cli-offline"], cli, SEED_HOST, SEED_PORT)
            if "127.0.1." not in out:
                fail(f"cli-offline printed no cloud-A node:\n{out}")
            print("ok: cli-offline")
            (out, _), = run_cli(snippets["cli-reshard"], cli, SEED_HOST, SEED_PORT)
            if not re.search(r"^shards: 2 -> 3$", out, re.M) or "cache-a -> cache-c" not in out:
                fail(f"cli-reshard printed no share of keys that move to the new shard:\n{out}")
            print("ok: cli-reshard")
        elif what == "run-live":
            host, port = first_seed(pathlib.Path(rest[2]))
            c = snippets["c-live"]
            compile_run(Snippet(c.name, c.lang, seed(c.text, host, port), c.line, None, c.doc), lib, work, printed(c))
            (set_out, _), (get_out, get_err) = run_cli(snippets["cli-live"], cli, host, port)
            if set_out != "OK\n" or get_out != "alice\n" or "(local)" not in get_err:
                fail(f"cli-live printed {set_out!r}, {get_out!r}, stderr {get_err!r}")
            print("ok: cli-live: set, then get served in the client's cloud")
            c = snippets["c-pubsub"]
            compile_run(Snippet(c.name, c.lang, seed(c.text, host, port), c.line, None, c.doc), lib, work, printed(c))
            (pub_out, _), (_, sub_err) = run_cli(snippets["cli-pubsub"], cli, host, port)
            if not re.fullmatch(r"\d+\n", pub_out) or not re.search(r"^subscribed news at 127\.0\.1\.", sub_err, re.M):
                fail(f"cli-pubsub printed {pub_out!r}, stderr {sub_err!r}")
            print("ok: cli-pubsub: published, subscribed on a cloud-A node")
        else:
            fail(f"unknown command {what}")


if __name__ == "__main__":
    main()
