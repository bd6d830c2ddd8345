/* pinbench's per-test method-entry recorder for Mono 6.x, built into the C# environment.
 * Usage: MONO_PERTEST_OUT=file mono --debug --profile=pertest:MyLib,MyLib.Other PinbenchNUnit.exe ...
 *   desc after ':' = comma-separated assembly (image) names to record.
 * Marker.TestBegin(string)/Marker.TestEnd(string) (global namespace, any assembly) delimit tests.
 * Output lines:  B\t<test>   M\t<method full name>\t<file>\t<line>   E\t<test>
 * Each method is printed once per test (first entry). Methods entered outside a test go under test "".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <mono/metadata/profiler.h>
#include <mono/metadata/class.h>
#include <mono/metadata/image.h>
#include <mono/metadata/object.h>
#include <mono/metadata/debug-helpers.h>
#include <mono/metadata/mono-debug.h>
#include <mono/metadata/metadata.h>
#define mono_method_get_header_checked_stub(m) mono_method_get_header (m)

MONO_API_NO_EXTERN_C MonoDebugSourceLocation *mono_debug_method_lookup_location (MonoDebugMethodInfo *minfo, int il_offset);

struct _MonoProfiler { int unused; };
static MonoProfiler prof;
static char **images;
static int n_images;
/* tiny pointer set (open addressing), cleared at each TestBegin */
static void **set; static size_t set_cap = 0, set_n = 0;
static void set_clear (void) { if (set) memset (set, 0, set_cap * sizeof (void *)); set_n = 0; }
static int set_add (void *p) /* returns 1 if newly added */
{
	if (set_n * 2 >= set_cap) {
		size_t oc = set_cap; void **os = set;
		set_cap = oc ? oc * 2 : 4096; set = calloc (set_cap, sizeof (void *)); set_n = 0;
		for (size_t i = 0; i < oc; i++) if (os [i]) set_add (os [i]);
		free (os);
	}
	size_t h = ((size_t) p >> 3) * 11400714819323198485ull;
	for (size_t i = h & (set_cap - 1);; i = (i + 1) & (set_cap - 1)) {
		if (set [i] == p) return 0;
		if (!set [i]) { set [i] = p; set_n++; return 1; }
	}
}
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;

static int is_marker (MonoMethod *m)
{
	MonoClass *k = mono_method_get_class (m);
	return strcmp (mono_class_get_name (k), "Marker") == 0 && mono_class_get_namespace (k)[0] == 0;
}

static MonoProfilerCallInstrumentationFlags
filter (MonoProfiler *p, MonoMethod *m)
{
	if (is_marker (m))
		return MONO_PROFILER_CALL_INSTRUMENTATION_ENTER | MONO_PROFILER_CALL_INSTRUMENTATION_ENTER_CONTEXT;
	const char *img = mono_image_get_name (mono_class_get_image (mono_method_get_class (m)));
	for (int i = 0; i < n_images; i++)
		if (strcmp (img, images [i]) == 0)
			return MONO_PROFILER_CALL_INSTRUMENTATION_ENTER;
	return MONO_PROFILER_CALL_INSTRUMENTATION_NONE;
}

static void
enter (MonoProfiler *p, MonoMethod *m, MonoProfilerCallContext *ctx)
{
	if (is_marker (m)) {
		const char *name = mono_method_get_name (m);
		MonoString **arg = (MonoString **) mono_profiler_call_context_get_argument (ctx, 0);
		char *s = (arg && *arg) ? mono_string_to_utf8 (*arg) : NULL;
		pthread_mutex_lock (&mtx);
		if (strcmp (name, "TestBegin") == 0) {
			set_clear ();
			fprintf (out, "B\t%s\n", s ? s : "");
		} else if (strcmp (name, "TestEnd") == 0) {
			fprintf (out, "E\t%s\n", s ? s : "");
			set_clear ();
		}
		fflush (out);
		pthread_mutex_unlock (&mtx);
		if (arg) mono_profiler_call_context_free_buffer (arg);
		if (s) mono_free (s);
		return;
	}
	pthread_mutex_lock (&mtx);
	if (set_add (m)) {
		char *full = mono_method_full_name (m, 1);
		if (strncmp (full, "(wrapper", 8) == 0) { mono_free (full); pthread_mutex_unlock (&mtx); return; }
		const char *file = ""; int line = 0;
		MonoDebugSourceLocation *loc = NULL;
		MonoDebugMethodInfo *minfo = mono_debug_lookup_method (m);
		if (minfo) {
			/* first sequence point: lookup returns the seq point at or before an IL offset,
			 * so scan forward until one is found (state machines often start without one) */
			MonoMethodHeader *hdr = mono_method_get_header_checked_stub (m);
			uint32_t size = 0, max_stack;
			if (hdr) mono_method_header_get_code (hdr, &size, &max_stack);
			if (size > 65536) size = 65536;
			for (uint32_t off = 0; off <= size && !loc; off++)
				loc = mono_debug_method_lookup_location (minfo, off);
			if (hdr) mono_metadata_free_mh (hdr);
		}
		if (loc) { file = loc->source_file ? loc->source_file : ""; line = loc->row; }
		fprintf (out, "M\t%s\t%s\t%d\n", full, file, line);
		fflush (out); /* survive Environment.Exit / crashes */
		if (loc) mono_debug_free_source_location (loc);
		mono_free (full);
	}
	pthread_mutex_unlock (&mtx);
}

MONO_API void mono_profiler_init_pertest (const char *desc);

void
mono_profiler_init_pertest (const char *desc)
{
	const char *args = strchr (desc, ':');
	char *list = strdup (args ? args + 1 : "");
	images = calloc (strlen (list) + 2, sizeof (char *));
	for (char *tok = strtok (list, ","); tok; tok = strtok (NULL, ","))
		images [n_images++] = tok;
	const char *path = getenv ("MONO_PERTEST_OUT");
	out = path ? fopen (path, "w") : stderr;
	if (!out) { perror ("pertest"); exit (1); }
	fprintf (out, "P\tpertest-1\t%s\n", args ? args + 1 : ""); fflush (out); /* proves the profiler loaded: mono is silent when it cannot find it */
	MonoProfilerHandle h = mono_profiler_create (&prof);
	if (!mono_profiler_enable_call_context_introspection ())
		fprintf (stderr, "pertest: call context introspection unavailable\n");
	mono_profiler_set_call_instrumentation_filter_callback (h, filter);
	mono_profiler_set_method_enter_callback (h, enter);
}
