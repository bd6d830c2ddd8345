"""A C/C++ repository's CMake build and GoogleTest suite, in the sandbox (Python 3.6+: it runs
on the environment's interpreter, beside `_runner.py`, which calls `run`).

CMake configures the (read-only) tree into a scratch build directory with clang and pinbench's
top-level include (`pinbench.cmake`: GoogleTest served offline, coverage flags, the generated
test's target); make builds what compiles (`-k`: a test that does not compile fails alone);
CTest says which executables are the suite. Each GoogleTest test runs in a process of its own
(`--gtest_filter`), so its outcome and its coverage are its own: the raw profile it writes is
read here (counters per function, by the MD5 of the function's name) and mapped to source
functions by `llvm-cov export` over the build's binaries. Other CTest tests run as CTest would,
one outcome each."""

import hashlib
import json
import os
import re
import struct
import subprocess

TEST_SECONDS = 120  # one test's process
NOT_BUILT = "_NOT_BUILT"  # GoogleTest's CTest discovery: `<target>_NOT_BUILT`, no command
LIST_SECONDS = 30
PROFILE_MAGIC = 0xFF6C70726F667281  # "\xfflprofr\x81": a raw profile, 64-bit
HEADER = struct.Struct("<11Q")  # raw profile format 8 (LLVM 13 to 15)
RECORD = struct.Struct("<QQQQQI")  # NameRef, FuncHash, CounterPtr, FunctionPtr, Values, NumCounters
RECORD_SIZE = 48  # with NumValueSites (2 x u16) and padding


def run(job, codedir, workdir, env_root):
    """(outcomes, calls, functions, errors, failures, extra details)."""
    with open(os.path.join(env_root, "pinbench-env.json")) as handle:
        env = json.load(handle)
    build = os.path.join(workdir, "build")
    state = _State(job, env, env_root, codedir, workdir, build)
    try:
        state.configure()
        state.compile()
        state.run_tests()
        if job.get("deprecations") and job.get("path"):
            COMPILER_OUTPUT.append(state.deprecation_check(job["path"]))
    except _Stop as stop:
        state.errors.insert(0, str(stop))
    return state.result()


COMPILER_OUTPUT = []  # clang's deprecation warnings on the program's file (None: not checked)


class _Stop(Exception):
    """The build cannot go on (configure failed): the message says why."""


class _State(object):
    def __init__(self, job, env, env_root, codedir, workdir, build):
        self.job, self.env, self.env_root = job, env, env_root
        self.codedir, self.workdir, self.build = codedir, workdir, build
        self.trace = bool(job.get("trace"))
        self.generated = job.get("generated")
        self.outcomes, self.calls, self.errors, self.failures = {}, {}, [], []
        self.functions = []
        self.hits = {}  # test id -> set of NameRefs with a counter above zero
        self.targets = {}  # artifact path -> (target name, type, [sources])
        self.build_log = ""
        self.test_files = set()
        self.profiles = {}  # executable -> one raw profile it wrote (for llvm-cov)
        self.only = None  # the executables built (their target names); None: all of them

    # ------------------------------------------------------------------ configure

    def tool(self, name):
        return self.env["tools"][name]

    def configure(self):
        query = os.path.join(self.build, ".cmake", "api", "v1", "query", "client-pinbench")
        os.makedirs(query)
        with open(os.path.join(query, "query.json"), "w") as handle:
            json.dump({"requests": [{"kind": "codemodel", "version": 2}]}, handle)
        argv = [self.tool("cmake"), "-S", self.codedir, "-B", self.build, "-G", "Unix Makefiles"]
        argv += [
            "-DCMAKE_C_COMPILER=" + self.tool("clang"),
            "-DCMAKE_CXX_COMPILER=" + self.tool("clang++"),
            "-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES=" + os.path.join(self.env_root, "pinbench.cmake"),
            "-DFETCHCONTENT_FULLY_DISCONNECTED=ON",
            "-DCMAKE_GTEST_DISCOVER_TESTS_DISCOVERY_MODE=PRE_TEST",
            "-DBUILD_TESTING=ON",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
            "-DPINBENCH_COVERAGE=" + ("ON" if self.trace else "OFF"),
        ]
        for option in self.job.get("cmake_options") or []:
            argv.append("-D" + option)
        if self.generated:
            argv.append("-DPINBENCH_GENERATED_TEST=" + self.generated["path"])
            argv.append("-DPINBENCH_FOCAL=" + self.generated.get("focal", ""))
        code, text = _call(argv, self.workdir, 600)
        if code != 0:
            raise _Stop("cmake could not configure the project:\n" + _cmake_errors(text))
        self._read_codemodel()

    def deprecation_check(self, path):
        """clang's deprecation warnings on `path`, compiled again as the build compiled it
        but syntax only and with that one warning on (the build itself runs with -w, so that
        no project's -Werror meets a newer compiler's warnings); None when the build compiled
        no such file (a header)."""
        import shlex

        try:
            commands = _load(os.path.join(self.build, "compile_commands.json"))
        except (OSError, ValueError):
            return None
        target = os.path.normpath(os.path.join(self.codedir, path))
        for entry in commands:
            file = os.path.normpath(os.path.join(entry.get("directory", ""), entry.get("file", "")))
            if file != target:
                continue
            argv = entry.get("arguments") or shlex.split(entry.get("command", ""))
            kept, skip = [], False
            for arg in argv:
                if skip:
                    skip = False
                elif arg == "-o":
                    skip = True
                elif arg not in ("-c", "-w") and not arg.startswith(
                    ("-Werror", "-fprofile", "-fcoverage")
                ):
                    kept.append(arg)
            kept += ["-fsyntax-only", "-Wno-everything", "-Wdeprecated-declarations"]
            _, text = _call(kept, entry.get("directory") or self.build, 300)
            return text
        return None

    def _read_codemodel(self):
        reply = os.path.join(self.build, ".cmake", "api", "v1", "reply")
        try:
            index_name = sorted(n for n in os.listdir(reply) if n.startswith("index-"))[-1]
            index = _load(os.path.join(reply, index_name))
            codemodel = _load(
                os.path.join(
                    reply,
                    index["reply"]["client-pinbench"]["query.json"]["responses"][0]["jsonFile"],
                )
            )
        except (OSError, KeyError, IndexError, ValueError, TypeError):
            return  # no codemodel: the suite still runs, without knowing targets' sources
        for configuration in codemodel.get("configurations", [])[:1]:
            for entry in configuration.get("targets", []):
                try:
                    target = _load(os.path.join(reply, entry["jsonFile"]))
                except (OSError, ValueError, KeyError):
                    continue
                sources = [
                    self.rel(os.path.join(self.codedir, s["path"]))
                    for s in target.get("sources", [])
                    if not s.get("isGenerated")
                ]
                for artifact in target.get("artifacts", []):
                    path = artifact["path"]
                    if not os.path.isabs(path):
                        path = os.path.join(self.build, path)
                    self.targets[os.path.normpath(path)] = (
                        target.get("name", ""),
                        target.get("type", ""),
                        [s for s in sources if s],
                    )

    def rel(self, path):
        """A path inside the repository, relative to it ('' for any other)."""
        path = os.path.normpath(path)
        if path.startswith(self.build + os.sep) or not path.startswith(self.codedir + os.sep):
            return ""
        return os.path.relpath(path, self.codedir).replace(os.sep, "/")

    # ------------------------------------------------------------------ build

    def compile(self):
        argv = [self.tool("cmake"), "--build", self.build, "-j", str(_cpus())]
        if self.generated:
            argv += ["--target", "pinbench_generated_test"]
        else:
            self.only = self._selected_targets()
            if self.only:
                argv += ["--target"] + sorted(self.only)
        argv += ["--", "-k"]
        code, self.build_log = _call(argv, self.workdir, 1800)
        self.build_failed = code != 0

    def _selected_targets(self):
        """The executables whose sources hold the selected tests, built alone (with what they
        link): a suite's other executables are not the answer's concern. None (build all)
        when nothing is selected or a selected test's file is no executable's source (a test
        of CTest's own, a file included by another, no codemodel)."""
        files = set(s.split("::", 1)[0] for s in self.job.get("select") or [])
        if not files:
            return None
        names, covered = set(), set()
        for name, kind, sources in self.targets.values():
            if kind == "EXECUTABLE" and name and files.intersection(sources):
                names.add(name)
                covered.update(files.intersection(sources))
        return names if covered == files else None

    def _skipped(self, exe, name):
        """Whether this CTest entry's executable was left unbuilt on purpose."""
        if self.only is None:
            return False
        if exe is None:  # named by its target
            return name not in self.only and any(t[0] == name for t in self.targets.values())
        target = self.targets.get(os.path.normpath(exe))
        return target is not None and target[0] not in self.only

    def compile_errors_for(self, sources):
        """The build's error lines about these sources (or its first errors)."""
        lines = self.build_log.splitlines()
        found = [
            line for line in lines if "error" in line and any(s and s in line for s in sources)
        ]
        found = found or [line for line in lines if "error" in line.lower()]
        return "\n".join(found[:20])[:3000] or self.build_log[-3000:]

    # ------------------------------------------------------------------ tests

    def run_tests(self):
        if self.generated:
            exe = os.path.join(self.build, "pinbench", "pinbench_generated_test")
            commands = [("pinbench_generated_test", [exe], self.build)]
        else:
            commands = self._ctest()
        selected = set(self.job.get("select") or [])
        whole = set(s for s in selected if "::" not in s)  # every test of these files

        def wanted(test_id):
            return not selected or test_id in selected or test_id.split("::", 1)[0] in whole

        listed = {}  # executable -> its GoogleTest tests, None (not GoogleTest), or "missing"
        for name, argv, cwd in commands:
            if not argv:  # GoogleTest's discovery names an executable the build did not make
                if not self._skipped(None, name[: -len(NOT_BUILT)]):
                    self._missing(None, name[: -len(NOT_BUILT)])
                continue
            exe = argv[0]
            if self._skipped(exe, name):
                continue
            if exe not in listed:
                if not os.path.exists(exe):
                    listed[exe] = "missing"
                    self._missing(exe, name)
                    continue
                listed[exe] = self._gtest_list(exe, cwd)
                for test_id, full in listed[exe] or []:
                    if wanted(test_id):
                        self._run_gtest(exe, cwd, test_id, full)
            if listed[exe] is None and wanted("ctest::" + name):
                self._run_plain("ctest::" + name, argv, cwd)  # as CTest runs it
        if self.trace:
            self._map_functions()

    def _ctest(self):
        code, text = _call(
            [self.tool("ctest"), "--show-only=json-v1"], self.build, 300, stderr=False
        )
        try:
            listing = json.loads(text)
        except ValueError:
            raise _Stop(
                "ctest could not list the tests (exit status %s):\n%s" % (code, text[-2000:])
            )
        commands = []
        for test in listing.get("tests", []):
            argv = test.get("command") or []
            if not argv and not str(test.get("name", "")).endswith(NOT_BUILT):
                continue
            cwd = self.build
            for prop in test.get("properties", []):
                if prop.get("name") == "WORKING_DIRECTORY":
                    cwd = prop.get("value") or cwd
            commands.append((test.get("name") or argv[0], argv, cwd))
        if not commands and not self.build_failed:
            raise _Stop("the project registers no tests with CTest (enable_testing, add_test)")
        if not commands:
            raise _Stop("the project does not build:\n" + self.compile_errors_for([]))
        return commands

    def _missing(self, exe, name):
        """A test executable the build did not produce (by its path, or by its target's
        name): its sources fail, with the errors."""
        if exe is None:
            target = next((t for t in self.targets.values() if t[0] == name), None)
        else:
            target = self.targets.get(os.path.normpath(exe))
        sources = target[2] if target else []
        message = "%s was not built:\n%s" % (
            os.path.basename(exe) if exe else name,
            self.compile_errors_for(sources),
        )
        files = [s for s in sources if not s.endswith((".h", ".hpp", ".hh"))] or ["ctest::" + name]
        for rel in files:
            self.outcomes[rel + "::(file)"] = "failed"
            self.test_files.add(rel)
        self.errors.append(message)

    def _gtest_list(self, exe, cwd):
        """[(test id, full name)] of a GoogleTest executable (DISABLED_ tests: skipped),
        None when it is not one."""
        try:
            with open(exe, "rb") as handle:
                if b"gtest_list_tests" not in handle.read():
                    return None
        except OSError:
            return None
        out = os.path.join(self.workdir, "gtest-list.json")
        if os.path.exists(out):
            os.remove(out)
        env = dict(os.environ, LLVM_PROFILE_FILE=os.path.join(self.workdir, "list.profraw"))
        _call([exe, "--gtest_list_tests", "--gtest_output=json:" + out], cwd, LIST_SECONDS, env=env)
        try:
            listing = _load(out)
        except (OSError, ValueError):
            return None
        found = []
        for suite in listing.get("testsuites", []):
            for test in suite.get("testsuite", []):
                full = "%s.%s" % (suite.get("name"), test.get("name"))
                rel = self.rel(str(test.get("file", ""))) or os.path.basename(exe)
                self.test_files.add(rel)
                test_id = "%s::%s" % (rel, full)
                if "DISABLED_" in full:
                    self.outcomes[test_id] = "skipped"
                    continue
                found.append((test_id, full))
        return found

    def _profile_env(self, index):
        path = os.path.join(self.workdir, "profiles", "%d.profraw" % index)
        if not os.path.isdir(os.path.dirname(path)):
            os.makedirs(os.path.dirname(path))
        return path, dict(os.environ, LLVM_PROFILE_FILE=path)

    def _run_gtest(self, exe, cwd, test_id, full):
        index = len(self.outcomes)
        profile, env = self._profile_env(index)
        out = os.path.join(self.workdir, "gtest-result.json")
        if os.path.exists(out):
            os.remove(out)
        argv = [exe, "--gtest_filter=" + full, "--gtest_output=json:" + out]
        code, text = _call(argv, cwd, TEST_SECONDS, env=env)
        outcome, message = "failed", ""
        try:
            result = _load(out)
        except (OSError, ValueError):
            result = None
        if code is None:
            message = "it ran over %d seconds" % TEST_SECONDS
        elif result is None:
            message = "it ended (exit status %s) before writing its result: %s" % (
                code,
                text[-1500:],
            )
        else:
            ran = [t for s in result.get("testsuites", []) for t in s.get("testsuite", [])]
            failures = [f.get("failure", "") for t in ran for f in t.get("failures", [])]
            if len(ran) != 1:
                message = "%d tests ran, not 1" % len(ran)
            elif ran[0].get("result") == "SKIPPED":
                outcome = "skipped"
            elif failures or code != 0:
                message = "\n".join(failures) or "exit status %s" % code
            elif ran[0].get("result") == "COMPLETED":
                outcome = "passed"
            else:
                message = "result %s" % ran[0].get("result")
        self.outcomes[test_id] = outcome
        if message:
            self.failures.append(("%s: %s" % (test_id, message))[:2000])
        self._read_profile(test_id, exe, profile)

    def _run_plain(self, test_id, argv, cwd):
        index = len(self.outcomes)
        profile, env = self._profile_env(index)
        code, text = _call(argv, cwd, TEST_SECONDS, env=env)
        self.outcomes[test_id] = "passed" if code == 0 else "failed"
        if code != 0:
            why = (
                "it ran over %d seconds" % TEST_SECONDS if code is None else "exit status %s" % code
            )
            self.failures.append(("%s: %s\n%s" % (test_id, why, text[-1500:]))[:2000])
        self._read_profile(test_id, argv[0], profile)

    # ------------------------------------------------------------------ coverage

    def _read_profile(self, test_id, exe, profile):
        if not self.trace or not os.path.exists(profile):
            return
        try:
            self.hits[test_id] = hit_functions(profile)
        except ValueError as exc:
            self.errors.append("%s: its coverage cannot be read: %s" % (test_id, exc))
            return
        if exe not in self.profiles:
            self.profiles[exe] = profile  # kept: llvm-cov reads the binary's names with it
        else:
            os.remove(profile)

    def _map_functions(self):
        """Each test's calls: the repository's functions (outside test files) whose counters
        its run raised, as `path:line:name` (line: where the function's code starts)."""
        if not self.profiles:
            return
        merged = os.path.join(self.workdir, "merged.profdata")
        code, text = _call(
            [self.tool("llvm-profdata"), "merge", "-sparse", "-o", merged]
            + sorted(self.profiles.values()),
            self.workdir,
            300,
        )
        if code != 0:
            self.errors.append("llvm-profdata could not merge the profiles: " + text[-1000:])
            return
        objects = sorted(self.profiles) + sorted(
            p
            for p, t in self.targets.items()
            if t[1] in ("SHARED_LIBRARY", "MODULE_LIBRARY") and os.path.exists(p)
        )
        argv = [self.tool("llvm-cov"), "export", objects[0]]
        for obj in objects[1:]:
            argv += ["-object", obj]
        argv += ["-instr-profile", merged, "-skip-expansions"]
        argv += ["-ignore-filename-regex", "^(/usr/|%s)" % re.escape(self.build)]
        exported = os.path.join(self.workdir, "coverage.json")
        with open(exported, "wb") as handle:
            done = subprocess.run(argv, stdout=handle, stderr=subprocess.PIPE, cwd=self.workdir)
        if done.returncode != 0:
            self.errors.append(
                "llvm-cov could not read the coverage: "
                + done.stderr.decode("utf-8", "replace")[-1000:]
            )
            return
        data = _load(exported)
        os.remove(exported)
        by_ref, pending = {}, []
        for entry in data.get("data", [{}])[0].get("functions", []):
            regions, files = entry.get("regions") or [], entry.get("filenames") or []
            if not regions or not files:
                continue
            first = regions[0]
            rel = self.rel(files[first[5]] if first[5] < len(files) else files[0])
            if not rel or rel in self.test_files:
                continue
            name = str(entry.get("name", ""))
            pending.append((name_ref(name), rel, int(first[0]), name))
        names = _demangle(
            self.tool("llvm-cxxfilt"),
            [p[3].rsplit(":", 1)[-1] if ":" in p[3] else p[3] for p in pending],
        )
        index = {}
        for (ref, rel, line, _), demangled in zip(pending, names):
            key = "%s:%d:%s" % (rel, line, short_name(demangled))
            if key not in index:
                index[key] = len(self.functions)
                self.functions.append(key)
            by_ref.setdefault(ref, set()).add(index[key])
        for test_id, refs in self.hits.items():
            ids = set()
            for ref in refs:
                ids.update(by_ref.get(ref, ()))
            self.calls[test_id] = ids

    def result(self):
        details = {}
        details["targets"] = dict(
            (t[0], {"type": t[1], "sources": t[2]}) for t in self.targets.values() if t[0]
        )
        return self.outcomes, self.calls, self.functions, self.errors, self.failures, details


# ---------------------------------------------------------------------- raw profiles


def hit_functions(path):
    """The NameRefs (MD5 of a function's name) whose counters are above zero in a raw profile
    of format 8 (profiles of several modules, one after another, are read in turn)."""
    with open(path, "rb") as handle:
        data = handle.read()
    hit, offset = set(), 0
    while offset + HEADER.size <= len(data):
        header = HEADER.unpack_from(data, offset)
        magic, version, binary_ids, records, pad_before, counters, pad_after, names = header[:8]
        counters_delta = header[8]
        if magic != PROFILE_MAGIC:
            if offset:
                break  # trailing bytes after the last profile
            raise ValueError("not a raw profile")
        if version & 0xFFFFFFFF != 8:
            raise ValueError("raw profile version %d (format 8 is read)" % (version & 0xFFFFFFFF))
        start = offset + HEADER.size + binary_ids
        counters_start = start + records * RECORD_SIZE + pad_before
        end = counters_start + counters * 8 + pad_after + names
        end += (-end) % 8
        if end > len(data):
            raise ValueError("a truncated raw profile")
        for index in range(records):
            ref, _, pointer, _, _, count = RECORD.unpack_from(data, start + index * RECORD_SIZE)
            base = (pointer - counters_delta + index * RECORD_SIZE) % (1 << 64)
            at = counters_start + base
            if base % 8 or at + count * 8 > counters_start + counters * 8:
                raise ValueError("a counter outside the profile")
            if any(struct.unpack_from("<%dQ" % count, data, at)):
                hit.add(ref)
        offset = end
    return hit


def name_ref(name):
    """The NameRef of a function: the first 8 bytes of the MD5 of its name, little-endian."""
    return struct.unpack("<Q", hashlib.md5(name.encode("utf-8")).digest()[:8])[0]


def _demangle(tool, names):
    if not names:
        return []
    done = subprocess.run([tool], input="\n".join(names).encode("utf-8"), stdout=subprocess.PIPE)
    out = done.stdout.decode("utf-8", "replace").splitlines()
    return out if len(out) == len(names) else names


def short_name(demangled):
    """A function's own name from its demangled signature: `ns::Node<T>::size() const` ->
    `size`, `ns::Node::~Node()` -> `~Node`, `ns::operator==(A, B)` -> `operator==`."""
    text = re.sub(r"\[abi:[^\]]*\]", "", demangled.strip())  # `slugify[abi:cxx11]()`
    text = text.replace("(anonymous namespace)::", "")
    depth, cut = 0, len(text)
    for index, char in enumerate(text):  # the parameter list: the first `(` outside <>
        if char == "<" and not text[:index].endswith("operator"):
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif char == "(" and depth == 0 and not text[:index].endswith("operator"):
            cut = index
            break
    head = text[:cut]
    operator = head.find("operator")
    if operator >= 0 and (operator == 0 or head[operator - 1] in ": "):
        return head[operator:].strip()
    while "<" in head:
        stripped = re.sub(r"<[^<>]*>", "", head)
        if stripped == head:
            break
        head = stripped
    own = head.split("::")[-1].split(" ")[-1].replace(":", "")
    return own or text.replace(":", "")  # never empty: an empty name would match any


# ---------------------------------------------------------------------- helpers


def _cmake_errors(text):
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("CMake Error")]
    if not starts:
        return "\n".join(lines[-30:])[:3000]
    return "\n".join(lines[starts[0] : starts[0] + 25])[:3000]


def _load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _cpus():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return 2


def _call(argv, cwd, timeout, env=None, stderr=True):
    """(exit status, or None when it ran over `timeout` seconds; its output, as text)."""
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if stderr else subprocess.DEVNULL,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        return None, (exc.output or b"").decode("utf-8", "replace")
    except OSError as exc:
        return 127, str(exc)
    return done.returncode, done.stdout.decode("utf-8", "replace")
