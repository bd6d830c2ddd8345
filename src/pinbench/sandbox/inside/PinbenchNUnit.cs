// pinbench's NUnit 2.6 runner for Mono, run in the sandbox. Built into the C# environment.
//
//   mono --debug PinbenchNUnit.exe TESTS.dll --list          one line per test: FullName TAB RunState
//   mono --debug PinbenchNUnit.exe TESTS.dll [FullName ... | @FILE]  runs them (FILE: a name a line):
//                                                            one "@@T {json}" line per event
//
// Events: start, finish (state Success, Failure, Error, Ignored, ...; message; stack),
// suite_problem (a fixture's setup failed), unhandled, process_exit_during_test (the test ended
// the process: Environment.Exit). Marker.TestBegin/TestEnd delimit a test for pinbench's
// profiler (pinbench_mono_profiler.c), which records the methods each test enters.
using System;
using System.IO;
using System.Text;
using NUnit.Core;
using NUnit.Core.Filters;

public static class Marker
{
    public static void TestBegin(string name) { }
    public static void TestEnd(string name) { }
}

class Listener : EventListener
{
    public static string Current;

    public static string Json(string s)
    {
        if (s == null) return "null";
        var sb = new StringBuilder("\"");
        foreach (char c in s)
        {
            if (c == '"' || c == '\\') sb.Append('\\').Append(c);
            else if (c < 0x20) sb.AppendFormat("\\u{0:x4}", (int)c);
            else sb.Append(c);
        }
        return sb.Append('"').ToString();
    }

    public static void Emit(string json)
    {
        Program.Out.WriteLine("@@T " + json);
        Program.Out.Flush();
    }

    public void RunStarted(string name, int testCount) { }
    public void RunFinished(TestResult result) { }
    public void RunFinished(Exception e) { Emit("{\"event\":\"run_error\",\"message\":" + Json(e.ToString()) + "}"); }

    public void TestStarted(TestName t)
    {
        Current = t.FullName;
        Emit("{\"event\":\"start\",\"name\":" + Json(t.FullName) + "}");
        Marker.TestBegin(t.FullName);
    }

    public void TestFinished(TestResult r)
    {
        Marker.TestEnd(r.Test.TestName.FullName);
        Current = null;
        Emit("{\"event\":\"finish\",\"name\":" + Json(r.Test.TestName.FullName)
             + ",\"state\":" + Json(r.ResultState.ToString())
             + ",\"message\":" + Json(r.Message) + ",\"stack\":" + Json(r.StackTrace) + "}");
    }

    public void SuiteStarted(TestName t) { }

    public void SuiteFinished(TestResult r)
    {
        bool bad = r.ResultState == ResultState.Error || r.ResultState == ResultState.Failure
                   || r.ResultState == ResultState.NotRunnable;
        if (bad && r.FailureSite != FailureSite.Child)
            Emit("{\"event\":\"suite_problem\",\"name\":" + Json(r.Test.TestName.FullName)
                 + ",\"state\":" + Json(r.ResultState.ToString()) + ",\"message\":" + Json(r.Message) + "}");
    }

    public void UnhandledException(Exception e)
    {
        Emit("{\"event\":\"unhandled\",\"test\":" + Json(Current) + ",\"message\":" + Json(e.ToString()) + "}");
    }

    public void TestOutput(TestOutput o) { }
}

class Program
{
    public static TextWriter Out;

    static int Main(string[] args)
    {
        Out = new StreamWriter(Console.OpenStandardOutput()) { AutoFlush = true };
        if (args.Length < 1) { Console.Error.WriteLine("usage: PinbenchNUnit.exe TESTS.dll [--list | FullName ...]"); return 2; }
        AppDomain.CurrentDomain.ProcessExit += (s, e) => {
            if (Listener.Current != null)
                Listener.Emit("{\"event\":\"process_exit_during_test\",\"name\":" + Listener.Json(Listener.Current)
                              + ",\"exit_code\":" + Environment.ExitCode + "}");
        };
        CoreExtensions.Host.InitializeService();
        var package = new TestPackage(Path.GetFullPath(args[0]));
        package.Settings["ShadowCopyFiles"] = false;
        var runner = new SimpleTestRunner();
        if (!runner.Load(package)) { Console.Error.WriteLine("the test assembly did not load"); return 2; }
        if (args.Length > 1 && args[1] == "--list") { List(runner.Test); return 0; }
        ITestFilter filter = TestFilter.Empty;
        if (args.Length > 1)
        {
            var names = new System.Collections.Generic.List<string>();
            for (int i = 1; i < args.Length; i++)
            {
                if (!args[i].StartsWith("@")) { names.Add(args[i]); continue; }
                foreach (var line in File.ReadAllLines(args[i].Substring(1), Encoding.UTF8))
                    if (line.Length > 0) names.Add(line);
            }
            filter = new SimpleNameFilter(names.ToArray());
        }
        runner.Run(new Listener(), filter, false, LoggingThreshold.Off);
        return 0;
    }

    static void List(ITest t)
    {
        if (!t.IsSuite) { Out.WriteLine(t.TestName.FullName + "\t" + t.RunState); return; }
        if (t.Tests != null) foreach (ITest c in t.Tests) List(c);
    }
}
