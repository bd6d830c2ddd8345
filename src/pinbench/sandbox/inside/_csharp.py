"""A C# repository's projects and NUnit suite on Mono, in the sandbox (Python 3.6+: it runs on
the environment's interpreter, beside `_runner.py`, which calls `run`). `read_projects` is also
the host's reader of the same `.csproj` files (with a hardened XML parser).

Every `.csproj` is read (SDK-style: every `.cs` file under its directory; old-style: its
`Compile` items), compiled by mcs in the order its project references ask, into one assembly
per project; a project that does not compile fails the tests that need it, with mcs's errors.
NUnit projects' tests are listed by pinbench's runner (`PinbenchNUnit.exe`) and run, a project's
in one Mono process (a test that ends it fails, the rest resume in a new one), under pinbench's
Mono profiler, which records the methods of the repository's own assemblies each test entered,
with the file and line of each."""

import fnmatch
import json
import os
import re
import subprocess

TEST_SECONDS = 120
DROP_ROUNDS = 4  # compilations without the test files mcs rejected, at most
FRAMEWORK = "/usr/lib/mono/4.5"
TEST_PACKAGES = ("nunit", "microsoft.net.test.sdk", "nunit3testadapter", "nunittestadapter")
_ERROR = re.compile(r"^(.+?)\((\d+),(\d+)\): error (CS\d+): (.*)$", re.M)
_DECLARATION = re.compile(
    r"[{};]|\bnamespace\s+([\w.]+)|((?:\b(?:public|internal|private|protected|static|sealed|"
    r"abstract|partial|unsafe|new|readonly|ref)\s+)*)\b(?:class|struct|interface|enum|record)"
    r"\s+(\w+)"
)
# comments, strings (verbatim ones span lines) and characters: their braces are no blocks
_LITERAL = re.compile(
    r'//[^\n]*|/\*.*?(?:\*/|\Z)|\$?@\$?"(?:[^"]|"")*(?:"|\Z)|\$?"(?:[^"\\\n]|\\.)*"?'
    r"|'(?:[^'\\\n]|\\.)*'?",
    re.S,
)


def _local(tag):
    return tag.rsplit("}", 1)[-1]


def _items(root, name):
    return [e for e in root.iter() if _local(e.tag) == name]


def _property(root, name):
    """A property's first value set without a condition (else the first one)."""
    found = [e for e in _items(root, name) if (e.text or "").strip()]
    plain = [e for e in found if "Condition" not in e.attrib]
    chosen = (plain or found)[:1]
    return chosen[0].text.strip() if chosen else ""


def read_projects(files, read, fromstring):
    """The repository's projects, from its file list (`read(path)` gives a file's text,
    `fromstring` parses XML): name, directory, assembly, sources, references (framework
    assemblies), packages, project references (paths), defines, unsafe, whether it is an
    NUnit test project; a project that does not parse has `error`."""
    projects = []
    sources = [f for f in files if f.endswith(".cs") and not _generated_dir(f)]
    csprojs = sorted(f for f in files if f.endswith(".csproj") and not _hidden(f))
    project_dirs = [os.path.dirname(p) for p in csprojs]
    for path in csprojs:
        folder = os.path.dirname(path)
        stem = os.path.basename(path)[: -len(".csproj")]
        project = {"path": path, "name": stem, "dir": folder, "error": ""}
        try:
            root = fromstring(read(path))
        except Exception as exc:  # any parser's error: the project is reported, not read
            project["error"] = "%s does not parse: %s" % (path, exc)
            projects.append(project)
            continue
        sdk = bool(root.attrib.get("Sdk")) or any(_local(e.tag) == "Sdk" for e in root)
        mine = [
            s
            for s in sources
            if _under(s, folder)
            and not any(d != folder and _under(s, d) and len(d) > len(folder) for d in project_dirs)
        ]
        if sdk:
            removed = [e.attrib.get("Remove", "") for e in _items(root, "Compile")]
            chosen = [
                s
                for s in mine
                if not any(
                    r and fnmatch.fnmatch(_rel(s, folder), r.replace("\\", "/")) for r in removed
                )
            ]
        else:
            patterns = [
                e.attrib.get("Include", "").replace("\\", "/") for e in _items(root, "Compile")
            ]
            chosen = [
                s for s in mine if any(p and fnmatch.fnmatch(_rel(s, folder), p) for p in patterns)
            ]
        references = [
            e.attrib.get("Include", "").split(",", 1)[0].strip() for e in _items(root, "Reference")
        ]
        packages = [e.attrib.get("Include", "").strip() for e in _items(root, "PackageReference")]
        refs = [
            os.path.normpath(os.path.join(folder, e.attrib.get("Include", "").replace("\\", "/")))
            for e in _items(root, "ProjectReference")
        ]
        named = [r.lower() for r in references + packages]
        project.update(
            assembly=_property(root, "AssemblyName") or stem,
            sources=sorted(chosen),
            references=[r for r in references if r],
            packages=[p for p in packages if p],
            project_refs=[r.replace(os.sep, "/") for r in refs],
            defines=[
                d.strip()
                for d in re.split(r"[;,]", _property(root, "DefineConstants"))
                if d.strip() and "$" not in d
            ],
            unsafe=_property(root, "AllowUnsafeBlocks").lower() == "true",
            # pinbench builds every assembly unsigned: a signed one's friends lose their keys
            unsigned=_property(root, "SignAssembly").lower() == "true",
            test=any(n.startswith("nunit") for n in named),
            sdk=sdk,
            framework=_framework(root),
        )
        projects.append(project)
    return choose_variants(projects)


_ELSEWHERE = re.compile(
    r"Portable|WindowsXaml|Silverlight|WindowsPhone|Xamarin|Mono(Android|Touch)"
)


def _framework(root):
    """(whether Mono's .NET Framework can build it, its framework version): a portable,
    Windows Store, Silverlight, phone or Xamarin project cannot; an SDK-style project's
    `netNN` is read as its version."""
    identifier = _property(root, "TargetFrameworkIdentifier")
    profile = _property(root, "TargetFrameworkProfile")
    imports = " ".join(e.attrib.get("Project", "") for e in _items(root, "Import"))
    elsewhere = (
        (identifier and identifier != ".NETFramework")
        or profile.startswith("Profile")
        or bool(_ELSEWHERE.search(imports))
    )
    version = _property(root, "TargetFrameworkVersion").lstrip("vV")
    if not version:
        target = _property(root, "TargetFramework") or _property(root, "TargetFrameworks")
        sdk_style = re.match(r"net(\d)(\d)(\d?)$", target.split(";")[0].strip())
        if sdk_style:
            version = ".".join(d for d in sdk_style.groups() if d)
        elif target:
            elsewhere = elsewhere or not target.startswith("net4")
    numbers = tuple(int(n) for n in re.findall(r"\d+", version)[:3])
    return [not elsewhere, list(numbers)]


def choose_variants(projects):
    """One project per assembly: a repository that builds the same assembly for several
    frameworks from sibling project files (`Lib.Net20.csproj`, `Lib.Portable.csproj`,
    `Lib.csproj`) is built once, from the variant Mono can build for the newest .NET Framework
    (the plainest file name on a tie); a project reference to another variant is redirected
    to the chosen one, and each left-out variant says so in `variants`."""
    groups = {}
    for project in projects:
        if not project.get("error"):
            groups.setdefault(project["assembly"].lower(), []).append(project)
    chosen_for = {}
    for group in groups.values():
        best = max(
            group,
            key=lambda p: (
                p["framework"][0],
                p["framework"][1] <= [4, 8],
                p["framework"][1],
                -len(p["name"]),
                p["path"],
            ),
        )
        best["variants"] = sorted(p["path"] for p in group if p is not best)
        for project in group:
            chosen_for[project["path"]] = best["path"]
    kept = [p for p in projects if p.get("error") or chosen_for.get(p["path"]) == p["path"]]
    for project in kept:
        if not project.get("error"):
            refs = [chosen_for.get(r, r) for r in project["project_refs"]]
            project["project_refs"] = sorted(set(refs), key=refs.index)
    return kept


_FRIEND_KEY = re.compile(
    r"(InternalsVisibleTo\s*\(\s*@?\"[^\",]+)\s*,\s*PublicKey(?:Token)?\s*=\s*[0-9a-fA-F]+"
)


def unsigned_copy(text):
    """A source without the public keys its friend-assembly declarations name: the
    assemblies are built unsigned (mcs is never given a key), so a friend is named by its name
    alone, as an unsigned build of the project would need."""
    return _FRIEND_KEY.sub(r"\1", text)


def _hidden(path):
    return any(p.startswith(".") for p in path.split("/")[:-1])


def _generated_dir(path):
    parts = path.split("/")[:-1]
    return _hidden(path) or "bin" in parts or "obj" in parts


def _under(path, folder):
    return not folder or path.startswith(folder + "/")


def _rel(path, folder):
    return path[len(folder) + 1 :] if folder else path


def declared_types(text, whole=False):
    """(namespace, name) of the types a C# file declares at its top level (a nested class is
    its outer class's: two fixtures may each have a `User`); `whole`: only those not declared
    `partial` (a partial declaration is meant to join the others)."""
    code = _LITERAL.sub(lambda m: " " * len(m.group(0)), text)  # no brace of a string counts
    found = set()
    blocks = []  # per open brace: the namespace it opens, else None
    pending = file_scoped = None
    for match in _DECLARATION.finditer(code):
        token = match.group(0)
        if match.group(1):
            pending = match.group(1)
        elif token == "{":
            blocks.append(pending)
            pending = None
        elif token == "}":
            if blocks:
                blocks.pop()
        elif token == ";":
            if pending:
                file_scoped, pending = pending, None
        elif all(b is not None for b in blocks):
            if not (whole and "partial" in match.group(2).split()):
                found.add((".".join(blocks) or file_scoped or "", match.group(3)))
    return found


def _without_tests(projects):
    """The projects that are not tests and need none, however indirectly."""
    by_path = dict((p["path"], p) for p in projects)
    needs_tests = {}

    def needs(project, seen=()):
        path = project["path"]
        if path not in needs_tests:
            needs_tests[path] = project["test"] or any(
                needs(by_path[r], seen + (path,))
                for r in project.get("project_refs", [])
                if r in by_path and r not in seen
            )
        return needs_tests[path]

    return [p for p in projects if not needs(p)]


def order(projects):
    """Projects in the order their references ask (a cycle: the rest in file order)."""
    by_path = dict((p["path"], p) for p in projects)
    done, result = set(), []
    for _ in range(len(projects) + 1):
        for project in projects:
            if project["path"] in done:
                continue
            needs = [r for r in project.get("project_refs", []) if r in by_path]
            if all(r in done for r in needs):
                done.add(project["path"])
                result.append(project)
    result += [p for p in projects if p["path"] not in done]
    return result


COMPILER_OUTPUT = []  # what mcs said, for the deprecation (obsolete) warnings in it


def compile_flags(project, framework=FRAMEWORK):
    """mcs's flags for a project's own settings: defines, unsafe code, the framework
    assemblies it references (those the machine has)."""
    flags = ["-nologo", "-debug", "-target:library", "-langversion:7.2", "-nowarn:1591"]
    flags += ["-d:" + d for d in project.get("defines", [])]
    if project.get("unsafe"):
        flags.append("-unsafe")
    for name in [
        "System",
        "System.Core",
        "System.Xml",
        "System.Xml.Linq",
        "System.Data",
    ] + project.get("references", []):
        dll = name if name.endswith(".dll") else name + ".dll"
        if os.path.exists(os.path.join(framework, dll)) or os.path.exists(
            os.path.join(framework, "Facades", dll)
        ):
            if "-r:" + dll not in flags:
                flags.append("-r:" + dll)
    return flags


# ---------------------------------------------------------------------- the sandbox's run


def run(job, codedir, workdir, env_root):
    """(outcomes, calls, functions, errors, failures, extra details)."""
    import xml.etree.ElementTree as ElementTree

    with open(os.path.join(env_root, "pinbench-env.json")) as handle:
        env = json.load(handle)
    files = []
    for directory, dirs, names in os.walk(codedir):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            files.append(
                os.path.relpath(os.path.join(directory, name), codedir).replace(os.sep, "/")
            )

    def read(rel):
        with open(os.path.join(codedir, rel), encoding="utf-8", errors="replace") as handle:
            return handle.read()

    projects = read_projects(sorted(files), read, ElementTree.fromstring)
    state = _State(job, env, env_root, codedir, workdir, projects, read)
    state.compile_all()
    state.run_tests()
    return state.result()


class _State(object):
    def __init__(self, job, env, env_root, codedir, workdir, projects, read):
        self.job, self.env, self.env_root = job, env, env_root
        self.codedir, self.workdir, self.read = codedir, workdir, read
        self.projects = projects
        self.bin = os.path.join(workdir, "bin")
        os.makedirs(self.bin)
        self.outcomes, self.calls, self.functions, self.errors, self.failures = {}, {}, [], [], []
        self.index = {}
        self.built = {}  # project path -> its assembly's path (None: it did not compile)
        self.harness = os.path.join(env_root, "harness")

    def tool(self, name):
        return self.env["tools"][name]

    # ------------------------------------------------------------------ compile

    def compile_all(self):
        import shutil

        shutil.copyfile(
            os.path.join(self.env_root, self.env["nunit_framework"]),
            os.path.join(self.bin, "nunit.framework.dll"),
        )
        generated = self.job.get("generated")
        owner = self.owner_of(generated["path"]) if generated else None
        for project in self.projects:
            if project.get("error"):
                self.errors.append(project["error"])
            elif generated:  # the generated fixture is compiled alone, the suite not at all
                project["sources"] = [s for s in project["sources"] if s != generated["path"]]
        chosen = [p for p in self.projects if not p.get("error")]
        if generated:  # the suite is not compiled, nor what needs it (a test console)
            chosen = _without_tests(chosen)
        for project in order(chosen):
            self.compile(project)
        if generated:
            mains = [p for p in chosen if self.built.get(p["path"])]
            references = set(r for p in mains for r in p.get("references", []))
            # named as the test project it joins: the library's InternalsVisibleTo names it
            assembly = owner["assembly"] if owner else "PinbenchGenerated"
            project = {
                "path": "(generated)",
                "name": "PinbenchGenerated",
                "assembly": assembly,
                # with the test project's other files (base fixtures, test objects, types a
                # fixture declares for its tests): `helpers_of`
                "sources": [generated["path"]] + self.helpers_of(owner, generated["path"]),
                "references": sorted(references | set((owner or {}).get("references", []))),
                "project_refs": [p["path"] for p in mains],
                "defines": list((owner or {}).get("defines", [])),
                "unsafe": bool((owner or {}).get("unsafe")),
                "test": True,
            }
            self.projects.append(project)
            self.compile(project)

    def helpers_of(self, owner, path):
        """The owning test project's files a generated fixture is compiled with: all but those
        declaring a type it declares again (a reference answer is a copy of a suite file;
        an answer may copy a fixture's helper class). Only the fixture's own tests run."""
        if not owner:
            return []
        mine = declared_types(self.read(path), whole=True)
        return [
            s for s in owner["sources"] if s != path and not (declared_types(self.read(s)) & mine)
        ]

    def owner_of(self, path):
        """The test project a generated fixture at `path` belongs to: the one listing it, else
        the one whose directory holds it most closely; None when no test project does."""
        tests = [p for p in self.projects if p["test"] and not p.get("error")]
        for project in tests:
            if path in project["sources"]:
                return project
        holding = [p for p in tests if path.startswith(p["dir"] + "/" if p["dir"] else "")]
        return max(holding, key=lambda p: len(p["dir"])) if holding else None

    def compile(self, project):
        needs = [p for p in self.projects if p["path"] in project.get("project_refs", [])]
        missing = [p["name"] for p in needs if not self.built.get(p["path"])]
        if missing:
            self.built[project["path"]] = None
            self.fail_project(
                project,
                "%s needs %s, which did not compile" % (project["name"], ", ".join(missing)),
            )
            return
        out = os.path.join(self.bin, project["assembly"] + ".dll")
        argv = [self.tool("mcs")] + compile_flags(project) + ["-out:" + out]
        argv += ["-r:" + self.built[p["path"]] for p in needs]
        if project["test"]:
            argv.append("-r:" + os.path.join(self.bin, "nunit.framework.dll"))
        listing = os.path.join(self.workdir, project["assembly"] + ".sources")
        for _ in range(DROP_ROUNDS + 1):
            given = self.sources_of(project)
            with open(listing, "w") as handle:
                handle.write("\n".join('"%s"' % s for s in given))
            code, text = _call(argv + ["@" + listing], self.codedir, 600)
            COMPILER_OUTPUT.append(text[: 4 << 20])
            if code == 0 and os.path.exists(out):
                self.built[project["path"]] = out
                return
            broken = self.broken_files(project, given, text)
            if not broken:
                break
            # a test file that does not compile fails alone; the rest of its project runs (a
            # generated fixture's helper that does not compile is left out, silently)
            if project["path"] != "(generated)":
                self.errors.append(
                    (
                        "%s: %d test file(s) do not compile and fail alone:\n%s"
                        % (project["name"], len(broken), _errors_of(text))
                    )[:4000]
                )
                for source in broken:
                    self.outcomes[source + "::(file)"] = "failed"
            project["sources"] = [s for s in project["sources"] if s not in broken]
        self.built[project["path"]] = None
        self.fail_project(project, "%s does not compile:\n%s" % (project["name"], _errors_of(text)))

    def broken_files(self, project, given, text):
        """The test project's own files mcs's errors are in, when some of its files would be
        left (a main project, or a test project whose every file is broken, fails whole)."""
        if not project["test"]:
            return []
        as_given = dict(zip(given, project["sources"]))
        broken = set()
        for match in _ERROR.finditer(text):
            source = as_given.get(match.group(1).strip())
            if source is None:
                return []  # an error outside the project's files: its configuration
            broken.add(source)
        if not broken or len(broken) >= len(project["sources"]):
            return []
        if project["path"] == "(generated)" and project["sources"][0] in broken:
            return []  # the answer itself does not compile: no helper is dropped for it
        return sorted(broken)

    def sources_of(self, project):
        """The project's sources to compile: an unsigned project's friend declarations are
        compiled from a copy without their public keys (`unsigned_copy`)."""
        if not project.get("unsigned"):
            return project["sources"]
        chosen = []
        for rel in project["sources"]:
            text = self.read(rel)
            changed = unsigned_copy(text)
            if changed == text:
                chosen.append(rel)
                continue
            copy = os.path.join(self.workdir, "unsigned", rel)
            if not os.path.isdir(os.path.dirname(copy)):
                os.makedirs(os.path.dirname(copy))
            with open(copy, "w", encoding="utf-8") as handle:
                handle.write(changed)
            chosen.append(copy)
        return chosen

    def fail_project(self, project, message):
        """A project that did not compile: its test files fail (a main project's failure
        fails every test project that needs it, in turn)."""
        self.errors.append(message[:4000])
        if project["test"]:
            for source in project["sources"]:
                self.outcomes[source + "::(file)"] = "failed"

    # ------------------------------------------------------------------ tests

    def run_tests(self):
        selected = set(self.job.get("select") or [])
        whole = set(s for s in selected if "::" not in s)

        def wanted(test_id):
            return not selected or test_id in selected or test_id.split("::", 1)[0] in whole

        mains = [
            p["assembly"] for p in self.projects if not p["test"] and self.built.get(p["path"])
        ]
        generated = self.job.get("generated")
        for project in self.projects:
            dll = self.built.get(project["path"])
            if not project["test"] or not dll:
                continue
            if generated and project["path"] != "(generated)":
                continue
            classes = self.fixture_files(project)
            batch = []
            for name, state in self.list(dll):
                rel = classes.get(name.split("(", 1)[0].rsplit(".", 1)[0].rsplit(".", 1)[-1])
                test_id = "%s::%s" % (rel or project["path"], name)
                if not wanted(test_id):
                    continue
                if state in ("Ignored", "Explicit", "Skipped"):
                    self.outcomes[test_id] = "skipped"
                    continue
                batch.append((name, test_id))
            self.run_batch(dll, batch, mains)

    def fixture_files(self, project):
        found = {}
        for source in project["sources"]:
            for match in re.finditer(r"\bclass\s+(\w+)", self.read(source)):
                found.setdefault(match.group(1), source)
        return found

    def list(self, dll):
        code, text = _call(
            [
                self.tool("mono"),
                "--debug",
                os.path.join(self.env_root, self.env["runner"]),
                dll,
                "--list",
            ],
            self.bin,
            120,
        )
        tests = []
        for line in text.splitlines():
            if "\t" in line:
                name, state = line.rsplit("\t", 1)
                tests.append((name.strip(), state.strip()))
        if not tests and code != 0:
            self.errors.append(
                "%s: its tests cannot be listed (exit status %s): %s"
                % (os.path.basename(dll), code, text[-1500:])
            )
        return tests

    def run_batch(self, dll, tests, mains):
        """The tests, in one Mono process as NUnit runs a suite; a test that ends the process
        (Environment.Exit, a crash) or runs over `TEST_SECONDS` fails, and the tests after it
        run on in a new process."""
        pending = list(tests)
        attempt = 0
        while pending:
            attempt += 1
            listing = os.path.join(self.workdir, "tests-%d.txt" % attempt)
            with open(listing, "w", encoding="utf-8") as handle:
                handle.write("\n".join(name for name, _ in pending) + "\n")
            trace = os.path.join(self.workdir, "trace-%d.txt" % attempt)
            argv = [self.tool("mono"), "--debug"]
            if self.job.get("trace") and mains:
                argv.append("--profile=%s:%s" % (self.env["profiler"], ",".join(mains)))
            argv += [os.path.join(self.env_root, self.env["runner"]), dll, "@" + listing]
            env = dict(
                os.environ,
                LD_LIBRARY_PATH=os.path.join(self.env_root, self.env["profiler_dir"]),
                MONO_PERTEST_OUT=trace,
            )
            code, text, events, running = _watch(argv, self.bin, env)
            ids = dict(pending)
            finished = set()
            for event in events:
                kind, name = event.get("event"), event.get("name")
                if kind == "finish" and name in ids:
                    finished.add(name)
                    self.outcomes[ids[name]] = self.outcome_of(ids[name], event)
                elif kind in ("process_exit_during_test", "suite_problem", "unhandled"):
                    label = ids.get(name or event.get("test"), name or event.get("test") or "")
                    self.failures.append(("%s: %s" % (label, event.get("message") or kind))[:2000])
            if self.job.get("trace"):
                self.read_traces(trace, ids)
            rest = [(n, t) for n, t in pending if n not in finished]
            if not rest:
                break
            if running not in ids or running in finished:
                # no test was running when the process ended: none of the rest can run
                for _, test_id in rest:
                    self.outcomes[test_id] = "failed"
                self.failures.append(
                    (
                        "%s: the test process ended (exit status %s) before %d test(s) ran: %s"
                        % (os.path.basename(dll), code, len(rest), text[-1500:])
                    )[:2000]
                )
                break
            why = (
                "it ran over %d seconds" % TEST_SECONDS
                if code is None
                else "the process ended (exit status %s) before the test finished: %s"
                % (code, text[-1500:])
            )
            self.failures.append(("%s: %s" % (ids[running], why))[:2000])
            self.outcomes[ids[running]] = "failed"
            pending = [(n, t) for n, t in rest if n != running]

    def outcome_of(self, test_id, finish):
        state = finish.get("state")
        if state == "Success":
            return "passed"
        if state in ("Ignored", "Skipped", "Inconclusive"):
            return "skipped"
        self.failures.append(("%s: %s %s" % (test_id, state, finish.get("message") or ""))[:2000])
        return "failed"

    def read_traces(self, trace, ids):
        """The methods each test entered, as `path:line:name`, from the profiler's sections
        (`B name` ... `E name`); what runs between two tests (a fixture's set-up, a static
        constructor) is counted to the test that begins next. The profiler's first line
        proves it was loaded."""
        try:
            with open(trace, encoding="utf-8", errors="replace") as handle:
                lines = handle.read().splitlines()
        except OSError:
            lines = []
        if not lines or not lines[0].startswith("P\t"):
            self.errors.append("%s: pinbench's profiler recorded nothing" % os.path.basename(trace))
            return
        current, between = None, set()
        for line in lines:
            parts = line.split("\t")
            if parts[0] == "B" and len(parts) > 1:
                current = ids.get(parts[1])
                if current is not None:
                    self.calls.setdefault(current, set()).update(between)
                between = set()
            elif parts[0] == "E":
                current = None
            elif parts[0] == "M" and len(parts) >= 4 and parts[3].isdigit() and parts[3] != "0":
                path = os.path.normpath(parts[2])
                if not path.startswith(self.codedir + os.sep):
                    continue
                rel = os.path.relpath(path, self.codedir).replace(os.sep, "/")
                key = "%s:%s:%s" % (rel, parts[3], method_name(parts[1]))
                if key not in self.index:
                    self.index[key] = len(self.functions)
                    self.functions.append(key)
                if current is None:
                    between.add(self.index[key])
                else:
                    self.calls.setdefault(current, set()).add(self.index[key])

    def result(self):
        targets = dict(
            (
                p["name"],
                {
                    "type": "TEST_LIBRARY" if p["test"] else "LIBRARY",
                    "sources": p.get("sources", []),
                },
            )
            for p in self.projects
            if not p.get("error") and p["path"] != "(generated)"
        )
        return (
            self.outcomes,
            self.calls,
            self.functions,
            self.errors,
            self.failures,
            {"targets": targets},
        )


def method_name(full):
    """A method's own name from Mono's `Ns.Outer/Inner:Method (int,string)`: a constructor is
    named after its class, a property accessor after its property."""
    owner, _, rest = full.partition(":")
    name = rest.split(" (", 1)[0].split("<", 1)[0]
    if name in (".ctor", ".cctor"):
        return re.split(r"[./]", owner.split("`", 1)[0])[-1]
    if name.startswith(("get_", "set_")):
        return name[4:]
    return name


def _errors_of(text):
    found = [m.group(0) for m in _ERROR.finditer(text)]
    return "\n".join(found[:20])[:3000] if found else text[-3000:]


def _watch(argv, cwd, env):
    """Run the NUnit runner, reading its events as they come: (exit status, or None when a
    test ran over `TEST_SECONDS` and the process was killed; its output; the events; the
    test that had started and not finished when it ended)."""
    import select
    import time

    try:
        child = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
    except OSError as exc:
        return 127, str(exc), [], None
    chunks, events, running, pending = [], [], None, b""
    since = time.monotonic()
    killed = False
    while True:
        ready, _, _ = select.select([child.stdout], [], [], 1.0)
        if ready:
            data = os.read(child.stdout.fileno(), 65536)
            if not data:
                break
            chunks.append(data)
            pending += data
            *complete, pending = pending.split(b"\n")
            for raw in complete:
                if not raw.startswith(b"@@T "):
                    continue
                try:
                    event = json.loads(raw[4:].decode("utf-8", "replace"))
                except ValueError:
                    continue
                if not isinstance(event, dict):
                    continue
                events.append(event)
                if event.get("event") == "start":
                    running, since = event.get("name"), time.monotonic()
                elif event.get("event") == "finish" and event.get("name") == running:
                    running, since = None, time.monotonic()
        if time.monotonic() - since > TEST_SECONDS:
            child.kill()
            killed = True
            break
    try:
        code = child.wait(timeout=TEST_SECONDS)
    except subprocess.TimeoutExpired:  # it closed its output and went on
        child.kill()
        code, killed = child.wait(), True
    child.stdout.close()
    text = b"".join(chunks)[-(1 << 20) :].decode("utf-8", "replace")
    return (None if killed else code), text, events, running


def _call(argv, cwd, timeout, env=None):
    """(exit status, or None when it ran over `timeout` seconds; its output, as text)."""
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        return None, (exc.output or b"").decode("utf-8", "replace")
    except OSError as exc:
        return 127, str(exc)
    return done.returncode, done.stdout.decode("utf-8", "replace")
