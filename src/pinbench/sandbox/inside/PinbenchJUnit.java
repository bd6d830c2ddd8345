// pinbench's runner of a Maven repository's JUnit tests (JUnit 4, 3 and 5), in the sandbox, on
// Debian's OpenJDK 17 and Debian's jars (JUnit Platform 1.9, Jupiter 5.9, Vintage, JaCoCo 0.8.6).
//
//   java [-javaagent:agent.jar=output=none,excludes=...] -cp <runner>:<jars>:<main>:<tests> \
//        PinbenchJUnit --result R.json --classes <main classes dir> --sources <root>[:<root>...] \
//        --trace 1|0 <test class FQCN>...
//
// Runs each named class through the JUnit Platform Launcher (one discovery and execution per
// class, as Surefire does, so one class that fails to load or to be discovered fails alone) and
// writes one UTF-8 JSON file, R.json, once at the end (or, from a shutdown hook, when a test
// ends the JVM with System.exit):
//   {"tests": [{"name": "<class>#<path>", "class": "<class>", "outcome": "passed|failed|skipped",
//               "seconds": 0.01, "calls": [<index into functions>...]}],
//    "functions": ["<source path>:<first line>:<method name>", ...],
//    "failures": [{"test": "<name>", "message": "<exception and its first frames>"}],
//    "class_errors": [{"class": "<class>", "message": "..."}]}
// <path>: the method name; a @Nested class adds `Inner/`; an invocation (parameterized, repeated,
// dynamic) appends `[n] <display name>`. A failed container (class, @BeforeAll, JUnit 4
// initializationError) is a class error and its tests that never ran get no entry.
// With --trace 1 (the JaCoCo agent loaded) each test's calls are the main-code methods (those
// whose .class file is under --classes) with a covered instruction in the test's window: from
// the end of the previous test (its instance creation included: field initializers run before
// the test starts) to its own end, plus the set-up windows (@BeforeAll, argument sources, a
// factory method, JUnit 4 @Parameters) of its containers. Prints one summary line to stdout.
// Exit status: 0 when the result was written, 2 on a usage or set-up error.

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.UniqueId;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

public class PinbenchJUnit {
    static final int MESSAGE_LIMIT = 1500;

    public static void main(String[] args) {
        PrintStream out = System.out; // tests may replace System.out
        Map<String, String> options = new HashMap<>();
        List<String> classes = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].startsWith("--") && i + 1 < args.length) {
                options.put(args[i], args[++i]);
            } else {
                classes.add(args[i]);
            }
        }
        if (!options.keySet().stream().allMatch(
                k -> Arrays.asList("--result", "--classes", "--sources", "--trace").contains(k))
                || !options.containsKey("--result")) {
            System.err.println("usage: PinbenchJUnit --result FILE --classes DIR --sources"
                    + " ROOT[:ROOT...] --trace 1|0 CLASS...");
            System.exit(2);
        }
        Report report = new Report(Paths.get(options.get("--result")), out);
        Tracer tracer = null;
        if ("1".equals(options.get("--trace"))) {
            try { // only here are JaCoCo's classes loaded: with --trace 0 they may be absent
                tracer = new Tracer(report, new File(options.getOrDefault("--classes", "")),
                        options.getOrDefault("--sources", ".").split(":"));
            } catch (Throwable e) {
                System.err.println("pinbench-junit: no JaCoCo agent for --trace 1: " + e);
                System.exit(2);
            }
        }
        Runtime.getRuntime().addShutdownHook(new Thread(report::onExit, "pinbench-junit-exit"));
        Thread thread = Thread.currentThread();
        ClassLoader loader = thread.getContextClassLoader();
        report.waiting.addAll(classes);
        boolean written;
        try {
            Launcher launcher = LauncherFactory.create();
            for (String name : classes) {
                report.waiting.remove(name);
                runClass(launcher, loader, name, report, tracer);
                thread.setContextClassLoader(loader); // a test may have changed it
            }
        } catch (Throwable e) { // no launcher: every class not run fails with it
            for (String name : new ArrayList<>(report.waiting)) {
                report.classError(name, "no JUnit launcher: " + describe(e));
            }
        } finally {
            written = report.write(false);
        }
        System.exit(written ? 0 : 2); // threads a test left running must not keep the JVM alive
    }

    /** One test class, discovered and executed on its own. */
    static void runClass(Launcher launcher, ClassLoader loader, String name, Report report,
            Tracer tracer) {
        Class<?> type;
        try { // loaded and initialized here: a failing static initializer fails the class
            type = Class.forName(name, true, loader);
        } catch (Throwable e) {
            report.classError(name, describe(e));
            return;
        }
        Listener listener = new Listener(name, report, tracer);
        report.current = listener;
        try {
            launcher.execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(DiscoverySelectors.selectClass(type))
                    // one test at a time: a test's coverage window is the whole JVM's
                    .configurationParameter("junit.jupiter.execution.parallel.enabled", "false")
                    .build(), listener);
        } catch (Throwable e) {
            report.classError(name, describe(e));
        } finally {
            report.current = null;
        }
    }

    /** The exception and its first frames outside JUnit and reflection, at most ~1500 chars. */
    static String describe(Throwable error) {
        String text;
        try {
            StringWriter writer = new StringWriter();
            error.printStackTrace(new PrintWriter(writer));
            text = writer.toString();
        } catch (Throwable e) { // a toString() that throws
            text = error.getClass().getName();
        }
        StringBuilder kept = new StringBuilder();
        int frames = 0;
        boolean below = false; // past the top frames: the JDK's frames from here on are noise
        for (String line : text.split("\r?\n")) {
            String frame = line.trim();
            if (frame.startsWith("at ")) {
                String where = frame.substring(3).replaceFirst("^[\\w.$-]+(@[^/]*)?/", "");
                boolean jdk = where.matches("(java|javax|jdk|sun|com\\.sun)\\..*");
                boolean junit = where.matches("(org\\.junit|junit\\.framework|junit\\.runner"
                        + "|org\\.opentest4j|PinbenchJUnit)[.$].*");
                boolean keep = !junit && !(jdk && below) && frames < 8;
                below |= !jdk;
                if (!keep) {
                    continue;
                }
                frames++;
            } else if (frame.startsWith("...")) {
                continue;
            } else if (frame.startsWith("Caused by:") || frame.startsWith("Suppressed:")) {
                frames = 0;
                below = false;
            }
            kept.append(line).append('\n');
            if (kept.length() > MESSAGE_LIMIT) {
                kept.setLength(MESSAGE_LIMIT);
                kept.append("...");
                break;
            }
        }
        return kept.toString().trim();
    }

    /** Everything gathered so far, and its JSON: written once (the end, or the exit hook). */
    static final class Report {
        private final Path path;
        private final PrintStream out;
        private final List<String> tests = new ArrayList<>(); // each test's JSON object
        private final Map<String, Integer> functions = new LinkedHashMap<>();
        private final List<String[]> failures = new ArrayList<>();
        private final List<String[]> classErrors = new ArrayList<>();
        private final Map<String, Integer> counts = new HashMap<>(); // outcome -> tests
        private boolean written;
        volatile Listener current; // the class running now, for the exit hook
        final Set<String> waiting = Collections.synchronizedSet(new LinkedHashSet<>());

        Report(Path path, PrintStream out) {
            this.path = path;
            this.out = out;
        }

        synchronized int function(String function) {
            return functions.computeIfAbsent(function, f -> functions.size());
        }

        synchronized void test(String name, String type, String outcome, double seconds,
                Set<Integer> calls, String failure) {
            StringBuilder json = new StringBuilder("{\"name\": ").append(quote(name))
                    .append(", \"class\": ").append(quote(type))
                    .append(", \"outcome\": ").append(quote(outcome))
                    .append(String.format(Locale.ROOT, ", \"seconds\": %.4f", seconds));
            if (calls != null) {
                json.append(", \"calls\": ").append(new TreeSet<>(calls));
            }
            tests.add(json.append('}').toString());
            counts.merge(outcome, 1, Integer::sum);
            if (failure != null) {
                failures.add(new String[] {name, failure});
            }
        }

        synchronized void classError(String type, String message) {
            classErrors.add(new String[] {type, message});
        }

        /** The shutdown hook: a test called System.exit (or the JVM got a signal). */
        void onExit() {
            Listener listener = current;
            if (listener != null) {
                listener.interrupted();
            }
            synchronized (waiting) {
                for (String type : waiting) {
                    classError(type, "not run: the JVM exited before this class"
                            + " (System.exit in an earlier class, or a signal)");
                }
            }
            write(true);
        }

        /** Writes the result file (once) and the summary line; false if it could not. */
        synchronized boolean write(boolean early) {
            if (written) {
                return true;
            }
            written = true;
            StringBuilder json = new StringBuilder("{\"tests\": [");
            String sep = "\n  ";
            for (String test : tests) {
                json.append(sep).append(test);
                sep = ",\n  ";
            }
            json.append("],\n\"functions\": [");
            sep = "\n  ";
            for (String function : functions.keySet()) {
                json.append(sep).append(quote(function));
                sep = ",\n  ";
            }
            json.append("],\n\"failures\": [");
            appendPairs(json, failures, "test");
            json.append("],\n\"class_errors\": [");
            appendPairs(json, classErrors, "class");
            json.append("]}\n");
            boolean ok = true;
            try { // a whole file or none: written aside, then moved into place
                Path temporary = path.resolveSibling(path.getFileName() + ".part");
                Files.write(temporary, json.toString().getBytes(StandardCharsets.UTF_8));
                Files.move(temporary, path, StandardCopyOption.REPLACE_EXISTING,
                        StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                System.err.println("pinbench-junit: cannot write " + path + ": " + e);
                ok = false;
            }
            out.println(String.format("pinbench-junit: %d passed, %d failed, %d skipped%s%s",
                    counts.getOrDefault("passed", 0), counts.getOrDefault("failed", 0),
                    counts.getOrDefault("skipped", 0),
                    classErrors.isEmpty() ? "" : ", " + classErrors.size() + " class errors",
                    early ? " (the JVM exited early)" : ""));
            out.flush();
            return ok;
        }

        private static void appendPairs(StringBuilder json, List<String[]> pairs, String key) {
            for (int i = 0; i < pairs.size(); i++) {
                json.append(i == 0 ? "\n  {\"" : ",\n  {\"").append(key).append("\": ")
                        .append(quote(pairs.get(i)[0])).append(", \"message\": ")
                        .append(quote(pairs.get(i)[1])).append('}');
            }
        }

        /** A JSON string: quotes, backslashes and control characters escaped, a lone surrogate
         *  replaced (U+FFFD), everything else left as it is (the file is UTF-8). */
        static String quote(String text) {
            StringBuilder b = new StringBuilder(text.length() + 2).append('"');
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c == '"' || c == '\\') {
                    b.append('\\').append(c);
                } else if (c == '\n') {
                    b.append("\\n");
                } else if (c == '\t') {
                    b.append("\\t");
                } else if (c < 0x20 || c == 0x7f) {
                    b.append(String.format("\\u%04x", (int) c));
                } else if (Character.isHighSurrogate(c) && i + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(i + 1))) {
                    b.append(c).append(text.charAt(++i));
                } else if (Character.isSurrogate(c)) {
                    b.append('\ufffd');
                } else {
                    b.append(c);
                }
            }
            return b.append('"').toString();
        }
    }

    /** The events of one class's run: names, outcomes, and (tracing) coverage windows. */
    static final class Listener implements TestExecutionListener {
        private static final String ROOT = "";
        private final String type;
        private final Report report;
        private final Tracer tracer;
        private TestPlan plan;
        private final Map<String, String> names = new HashMap<>(); // unique id -> test name
        private final Set<String> used = new HashSet<>();
        private final Set<String> reported = new HashSet<>();
        private final Map<String, Long> started = new LinkedHashMap<>();
        private final Map<String, Set<Integer>> setup = new HashMap<>(); // container -> calls
        private final Map<String, Set<Integer>> calls = new HashMap<>(); // running test -> calls
        private String opened; // the container whose set-up window is open, if any

        Listener(String type, Report report, Tracer tracer) {
            this.type = type;
            this.report = report;
            this.tracer = tracer;
        }

        /** The coverage since the last event (none without tracing). */
        private Set<Integer> take() {
            return tracer == null ? new HashSet<>() : tracer.take();
        }

        @Override
        public synchronized void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
            setup.put(ROOT, take()); // discovery: JUnit 4 @Parameters, static initializers
            opened = ROOT;
        }

        @Override
        public synchronized void testPlanExecutionFinished(TestPlan testPlan) {
            take();
        }

        @Override
        public synchronized void executionStarted(TestIdentifier id) {
            Set<Integer> got = take(); // since the last event: a test's instance creation
            if (opened != null) { // the open container's set-up window ends here
                setup.computeIfAbsent(opened, k -> new HashSet<>()).addAll(got);
                got = new HashSet<>();
            }
            opened = id.isTest() ? null : id.getUniqueId();
            if (id.isTest()) {
                calls.put(id.getUniqueId(), got);
                started.put(id.getUniqueId(), System.nanoTime());
            }
        }

        @Override
        public synchronized void executionFinished(TestIdentifier id, TestExecutionResult result) {
            long end = System.nanoTime();
            Set<Integer> got = take();
            opened = null;
            Throwable error = result.getThrowable().orElse(null);
            TestExecutionResult.Status status = result.getStatus();
            if (id.isTest()) {
                Long start = started.remove(id.getUniqueId());
                Set<Integer> own = calls.remove(id.getUniqueId());
                got.addAll(own == null ? Set.of() : own);
                if (status == TestExecutionResult.Status.FAILED && isInitializationError(id)) {
                    report.classError(type, describe(error));
                    return;
                }
                record(id, status == TestExecutionResult.Status.SUCCESSFUL ? "passed"
                        : status == TestExecutionResult.Status.FAILED ? "failed" : "skipped",
                        start == null ? 0 : (end - start) / 1e9, got, error);
            } else if (status == TestExecutionResult.Status.ABORTED) {
                if (isMethodLeaf(id)) { // an assumption failed in an arguments source
                    record(id, "skipped", 0, null, null);
                }
                skipUnder(id); // an assumption failed in @BeforeAll: its tests did not run
            } else if (status == TestExecutionResult.Status.FAILED) {
                boolean method = id.getSource().filter(s -> s instanceof MethodSource).isPresent();
                if (method && !reported.contains(id.getUniqueId())) { // e.g. an arguments source
                    record(id, "failed", 0, null, error);
                } else {
                    String where = path(id, false);
                    report.classError(type, (where.isEmpty() ? "" : where + ": ")
                            + (error == null ? "failed" : describe(error)));
                }
            }
        }

        @Override
        public synchronized void executionSkipped(TestIdentifier id, String reason) {
            Set<Integer> got = take();
            if (opened != null) { // the set-up window stays open for the next child
                setup.computeIfAbsent(opened, k -> new HashSet<>()).addAll(got);
            }
            if (id.isTest() || isMethodLeaf(id)) {
                record(id, "skipped", 0, null, null);
            } else {
                skipUnder(id);
            }
        }

        /** Every test under a container that did not run, skipped. */
        private void skipUnder(TestIdentifier container) {
            for (TestIdentifier id : plan.getDescendants(container)) {
                if ((id.isTest() || isMethodLeaf(id)) && !reported.contains(id.getUniqueId())
                        && !started.containsKey(id.getUniqueId())) {
                    record(id, "skipped", 0, null, null);
                }
            }
        }

        /** A container of invocations not yet made (a parameterized method), seen as a test. */
        private boolean isMethodLeaf(TestIdentifier id) {
            return id.isContainer() && id.getSource().filter(s -> s instanceof MethodSource)
                    .isPresent() && plan.getChildren(id).isEmpty();
        }

        private static boolean isInitializationError(TestIdentifier id) {
            return id.getUniqueId().startsWith("[engine:junit-vintage]")
                    && "initializationError".equals(id.getDisplayName());
        }

        private void record(TestIdentifier id, String outcome, double seconds,
                Set<Integer> own, Throwable error) {
            reported.add(id.getUniqueId());
            Set<Integer> all = null;
            if (tracer != null && own != null) {
                all = new HashSet<>(own);
                all.addAll(setup.getOrDefault(ROOT, Set.of()));
                for (Optional<TestIdentifier> p = plan.getParent(id); p.isPresent();
                        p = plan.getParent(p.get())) {
                    all.addAll(setup.getOrDefault(p.get().getUniqueId(), Set.of()));
                }
            } else if (tracer != null) {
                all = new HashSet<>();
            }
            String name = type + "#" + name(id);
            report.test(name, type, outcome, seconds, all,
                    "failed".equals(outcome) ? (error == null ? "failed" : describe(error)) : null);
        }

        /** The exit hook: the tests still running failed (with what they covered so far). */
        synchronized void interrupted() {
            Set<Integer> got = take();
            long now = System.nanoTime();
            if (started.isEmpty()) {
                report.classError(type, "the JVM exited while this class ran, outside its tests"
                        + " (System.exit, or a signal)");
            }
            for (Map.Entry<String, Long> e : started.entrySet()) {
                TestIdentifier id = plan.getTestIdentifier(UniqueId.parse(e.getKey()));
                Set<Integer> own = calls.getOrDefault(e.getKey(), new HashSet<>());
                own.addAll(got);
                Throwable error = new IllegalStateException(
                        "the JVM exited during this test (System.exit, or a signal)");
                error.setStackTrace(new StackTraceElement[0]);
                record(id, "failed", (now - e.getValue()) / 1e9, own, error);
            }
            started.clear();
        }

        /** The test's name after `#`, unique within its class and the same from run to run. */
        private String name(TestIdentifier id) {
            String known = names.get(id.getUniqueId());
            if (known != null) {
                return known;
            }
            String name = path(id, false);
            if (name.isEmpty()) { // the class itself is the test (a runner with no children)
                name = clean(id.getDisplayName());
            }
            if (used.contains(name)) { // an overloaded method: its parameter types added
                name = path(id, true);
            }
            for (int n = 2; used.contains(name); n++) {
                name = path(id, true) + " (" + n + ")";
            }
            used.add(name);
            names.put(id.getUniqueId(), name);
            return name;
        }

        /** The path below the class: `method`, `Inner/method`, `method[2] display name`;
         *  with `full`, a method's parameter types too: `method(int, String)`. */
        private String path(TestIdentifier id, boolean full) {
            List<TestIdentifier> chain = new ArrayList<>();
            for (Optional<TestIdentifier> p = Optional.of(id); p.isPresent();
                    p = plan.getParent(p.get())) {
                chain.add(0, p.get());
            }
            StringBuilder path = new StringBuilder();
            for (int i = 2; i < chain.size(); i++) { // below the engine and the class
                TestIdentifier node = chain.get(i);
                List<UniqueId.Segment> segments = node.getUniqueIdObject().getSegments();
                UniqueId.Segment last = segments.get(segments.size() - 1);
                String kind = last.getType();
                String value = last.getValue();
                if (kind.equals("test-template-invocation") || kind.equals("dynamic-test")
                        || kind.equals("dynamic-container")) {
                    String index = "[" + value.replaceFirst("^#", "") + "]";
                    String shown = clean(node.getDisplayName());
                    path.append(shown.startsWith(index) ? shown
                            : shown.isEmpty() ? index : index + " " + shown);
                    continue;
                }
                if (path.length() > 0) {
                    path.append('/');
                }
                if (kind.equals("method") || kind.equals("test-template")
                        || kind.equals("test-factory")) {
                    path.append(full ? value : value.replaceFirst("\\(.*", ""));
                } else if (kind.equals("nested-class")) {
                    path.append(value);
                } else {
                    path.append(clean(node.getDisplayName()));
                }
            }
            return path.toString();
        }

        /** A display name made stable: one line, no identity hash codes, at most 120 chars. */
        private static String clean(String shown) {
            String s = shown.replaceAll("[\\p{Cntrl}]+", " ")
                    .replaceAll("\\$\\$Lambda\\$\\d+/0x[0-9a-f]+", "\\$\\$Lambda")
                    .replaceAll("@[0-9a-f]{5,8}\\b", "@hash").trim();
            return s.length() > 120 ? s.substring(0, 117) + "..." : s;
        }
    }

    /** JaCoCo, in this JVM: the main-code methods run since the last take. Each main-code class
     *  is read once: JaCoCo's Analyzer (every probe hit) names its methods that have code, and
     *  JaCoCo's probe numbering (ClassProbesAdapter, as the agent numbers them) gives the method
     *  of each probe; a test then ran a method when one of its probes was hit. This is what
     *  analyzing each test's data would say (a method with a covered instruction), at the cost
     *  of one pass over the probes instead of one analysis per class per test. */
    static final class Tracer {
        private static final Probes NONE = new Probes(new int[0], new String[0]);
        private final org.jacoco.agent.rt.IAgent agent;
        private final Report report;
        private final File classes;
        private final String[] roots;
        private final Map<String, Probes> owners = new HashMap<>(); // class -> its probes
        private final Map<String, String> sources = new HashMap<>();

        Tracer(Report report, File classes, String[] roots) {
            this.agent = org.jacoco.agent.rt.RT.getAgent();
            this.report = report;
            this.classes = classes;
            this.roots = roots;
            agent.reset();
        }

        /** The functions run since the last take, the data reset. */
        synchronized Set<Integer> take() {
            Set<Integer> found = new HashSet<>();
            org.jacoco.core.data.ExecutionDataReader reader =
                    new org.jacoco.core.data.ExecutionDataReader(
                            new ByteArrayInputStream(agent.getExecutionData(true)));
            reader.setSessionInfoVisitor(info -> { });
            reader.setExecutionDataVisitor(data -> {
                if (!data.hasHits()) {
                    return;
                }
                boolean[] hits = data.getProbes();
                Probes probes = owners.computeIfAbsent(data.getName(), n -> read(data));
                for (int i = 0; i < hits.length && i < probes.owner.length; i++) {
                    int method = probes.owner[i];
                    if (hits[i] && method >= 0) { // functions are numbered as first called
                        if (probes.ids[method] < 0) {
                            probes.ids[method] = report.function(probes.functions[method]);
                        }
                        found.add(probes.ids[method]);
                    }
                }
            });
            try {
                reader.read();
            } catch (IOException e) {
                System.err.println("pinbench-junit: unreadable JaCoCo data: " + e);
            }
            return found;
        }

        /** A class's probes and their functions; NONE for a class that is not main code (no
         *  .class file under --classes, or another version of it ran). */
        private Probes read(org.jacoco.core.data.ExecutionData data) {
            byte[] code;
            try {
                code = Files.readAllBytes(new File(classes, data.getName() + ".class").toPath());
            } catch (IOException | RuntimeException e) {
                return NONE;
            }
            if (org.jacoco.core.internal.data.CRC64.classId(code) != data.getId()) {
                return NONE;
            }
            int count = data.getProbes().length;
            boolean[] all = new boolean[count];
            Arrays.fill(all, true);
            org.jacoco.core.data.ExecutionDataStore store =
                    new org.jacoco.core.data.ExecutionDataStore();
            store.put(new org.jacoco.core.data.ExecutionData(data.getId(), data.getName(), all));
            org.jacoco.core.analysis.CoverageBuilder builder =
                    new org.jacoco.core.analysis.CoverageBuilder();
            Map<String, Integer> methods = new HashMap<>(); // name + descriptor -> index
            List<String> functions = new ArrayList<>();
            int[] owner = new int[count];
            Arrays.fill(owner, -1);
            try {
                new org.jacoco.core.analysis.Analyzer(store, builder).analyzeClass(code,
                        data.getName());
                for (org.jacoco.core.analysis.IClassCoverage type : builder.getClasses()) {
                    for (org.jacoco.core.analysis.IMethodCoverage method : type.getMethods()) {
                        String name = methodName(type.getName(), method.getName());
                        if (name != null && method.getMethodCounter().getCoveredCount() > 0) {
                            methods.put(method.getName() + method.getDesc(), functions.size());
                            functions.add(source(type) + ":" + method.getFirstLine() + ":" + name);
                        }
                    }
                }
                String[] current = {null}; // the method whose probes are being numbered
                org.jacoco.core.internal.flow.ClassProbesVisitor visitor =
                        new org.jacoco.core.internal.flow.ClassProbesVisitor() {
                    @Override
                    public org.jacoco.core.internal.flow.MethodProbesVisitor visitMethod(
                            int access, String name, String desc, String sig, String[] ex) {
                        current[0] = name + desc;
                        return new org.jacoco.core.internal.flow.MethodProbesVisitor() { };
                    }

                    @Override
                    public void visitTotalProbeCount(int total) {
                    }
                };
                org.jacoco.core.internal.instr.InstrSupport.classReaderFor(code).accept(
                        new org.jacoco.core.internal.flow.ClassProbesAdapter(visitor, false) {
                            @Override
                            public int nextId() {
                                int id = super.nextId();
                                if (id < count) {
                                    owner[id] = methods.getOrDefault(current[0], -1);
                                }
                                return id;
                            }
                        }, 0);
            } catch (IOException | RuntimeException e) {
                System.err.println("pinbench-junit: cannot analyze " + data.getName() + ": " + e);
                return NONE;
            }
            return new Probes(owner, functions.toArray(new String[0]));
        }

        /** A main-code class: the method of each probe (-1: none reported), each method's
         *  function and, once called, its index in the result's functions (else -1). */
        static final class Probes {
            final int[] owner;
            final String[] functions;
            final int[] ids;

            Probes(int[] owner, String[] functions) {
                this.owner = owner;
                this.functions = functions;
                this.ids = new int[functions.length];
                Arrays.fill(ids, -1);
            }
        }

        /** The repository-relative source file of a class, under the first root holding it. */
        private String source(org.jacoco.core.analysis.IClassCoverage type) {
            String file = type.getSourceFileName();
            if (file == null) { // compiled without -g:source: the top-level class's name
                file = type.getName().replaceFirst("^.*/", "").replaceFirst("\\$.*", "") + ".java";
            }
            String pkg = type.getPackageName();
            String rel = pkg.isEmpty() ? file : pkg + "/" + file;
            return sources.computeIfAbsent(rel, r -> {
                for (String root : roots) {
                    String path = root.isEmpty() || root.equals(".") ? r : root + "/" + r;
                    if (new File(path).isFile()) {
                        return path;
                    }
                }
                return roots.length == 0 || roots[0].isEmpty() || roots[0].equals(".") ? r
                        : roots[0] + "/" + r;
            });
        }

        /** The name a method is reported under; null for those left out. */
        static String methodName(String type, String method) {
            String simple = type.substring(type.lastIndexOf('/') + 1);
            simple = simple.substring(simple.lastIndexOf('$') + 1);
            if (method.equals("<clinit>") || method.startsWith("access$")
                    || method.equals("$deserializeLambda$")) {
                return null;
            }
            if (method.equals("<init>")) {
                return simple;
            }
            if (method.startsWith("lambda$")) { // lambda$enclosing$0
                String enclosing = method.substring(7).replaceFirst("\\$\\d+$", "");
                return Arrays.asList("static", "new", "null", "").contains(enclosing) ? simple
                        : enclosing;
            }
            return method;
        }
    }
}
