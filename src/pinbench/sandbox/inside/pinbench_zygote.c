/* pinbench's Node zygote addon: what a warm Node process needs to fork one confined child per
 * execution (inside/_pinbench_zygote.js), as the Python warm server forks its children.
 *
 * Node cannot fork by itself, and a plain fork(2) of it breaks three ways, each handled here:
 * V8 marks its heap MADV_DONTFORK (the child would fault on its first bytecode: every mapping
 * is made inheritable again just before the fork); the child shares libuv's epoll instance
 * with its parent (uv_loop_fork gives it its own); and Node's exit path joins the platform's
 * worker threads, which a forked child does not have (the child ends with _exit, after the
 * 'exit' listeners ran). V8's own background threads are off (`--single-threaded`), so no lock
 * can be held by a thread the child lacks.
 *
 * Built by the host (sandbox/zygote.py) with the system's C compiler; N-API is declared here
 * rather than included, so no Node headers are needed, and the one build serves every Node
 * release pinbench runs (12 and later). Compiled: never from dataset content. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

typedef struct napi_env__ *napi_env;
typedef struct napi_value__ *napi_value;
typedef struct napi_callback_info__ *napi_callback_info;
typedef int napi_status;
typedef napi_value (*napi_callback)(napi_env, napi_callback_info);
struct uv_loop_s;
napi_status napi_create_function(napi_env, const char *, size_t, napi_callback, void *,
                                 napi_value *);
napi_status napi_set_named_property(napi_env, napi_value, const char *, napi_value);
napi_status napi_get_cb_info(napi_env, napi_callback_info, size_t *, napi_value *, napi_value *,
                             void **);
napi_status napi_get_value_int32(napi_env, napi_value, int32_t *);
napi_status napi_get_value_double(napi_env, napi_value, double *);
napi_status napi_create_int32(napi_env, int32_t, napi_value *);
napi_status napi_get_value_string_utf8(napi_env, napi_value, char *, size_t, size_t *);
napi_status napi_create_string_utf8(napi_env, const char *, size_t, napi_value *);
napi_status napi_create_array_with_length(napi_env, size_t, napi_value *);
napi_status napi_set_element(napi_env, napi_value, uint32_t, napi_value);
napi_status napi_get_element(napi_env, napi_value, uint32_t, napi_value *);
napi_status napi_get_array_length(napi_env, napi_value, uint32_t *);
napi_status napi_get_buffer_info(napi_env, napi_value, void **, size_t *);
napi_status napi_get_null(napi_env, napi_value *);
napi_status napi_throw_error(napi_env, const char *, const char *);
napi_status napi_get_uv_event_loop(napi_env, struct uv_loop_s **);
int uv_loop_fork(struct uv_loop_s *);

#define MAX_MESSAGE (1 << 22)
#define MAX_FDS 16
#define ARGS(n)                                                                                \
  size_t argc = (n);                                                                         \
  napi_value argv[(n) > 0 ? (n) : 1];                                                        \
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL)

static napi_value fail(napi_env env, const char *what) {
  char text[256];
  snprintf(text, sizeof text, "%s: %s", what, strerror(errno));
  napi_throw_error(env, NULL, text);
  return NULL;
}

static napi_value number(napi_env env, int32_t value) {
  napi_value out;
  napi_create_int32(env, value, &out);
  return out;
}

static int32_t int_arg(napi_env env, napi_value value) {
  int32_t out = -1;
  napi_get_value_int32(env, value, &out);
  return out;
}

static pid_t zygote; /* the forking process, as its child sees it */

/* Every mapping inheritable again: V8 marks its heap pages MADV_DONTFORK. */
static void inheritable_mappings(void) {
  FILE *maps = fopen("/proc/self/maps", "re");
  char line[512];
  if (maps == NULL)
    return;
  while (fgets(line, sizeof line, maps)) {
    unsigned long start, end;
    if (sscanf(line, "%lx-%lx", &start, &end) == 2)
      madvise((void *)start, end - start, MADV_DOFORK);
    if (strchr(line, '\n') == NULL) { /* a long path: skip the rest of the line */
      int c;
      while ((c = fgetc(maps)) != EOF && c != '\n')
        ;
    }
  }
  fclose(maps);
}

/* The descriptors this process has, into `fds` (at most `room`); their number. */
static int open_fds(int *fds, int room) {
  DIR *dir = opendir("/proc/self/fd");
  struct dirent *entry;
  int count = 0;
  if (dir == NULL)
    return -1;
  while ((entry = readdir(dir)) != NULL && count < room) {
    int fd;
    if (entry->d_name[0] == '.')
      continue;
    fd = atoi(entry->d_name);
    if (fd != dirfd(dir))
      fds[count++] = fd;
  }
  closedir(dir);
  return count;
}

/* fork(keep): in the child, every descriptor the zygote held but the standard streams and
 * `keep` (the request's) becomes /dev/null (those still open on the zygote's file: fork's own
 * handlers give some numbers a new one) before the event loop gets its own: the zygote's
 * pipes, eventfds and epoll instances would otherwise be shared by all its children, a
 * channel from one execution to the next. Replaced rather than closed: libuv closes its old
 * descriptors in uv_loop_fork after opening new ones, and a closed number reused in between
 * would be closed under it. (libuv's io_uring rings, shared memory, are off: the zygote runs
 * with UV_USE_IO_URING=0.) */
static napi_value z_fork(napi_env env, napi_callback_info info) {
  ARGS(1);
  struct uv_loop_s *loop = NULL;
  int keep[MAX_FDS], inherited[1024], kept = 0, count;
  static struct stat before[1024];
  uint32_t n = 0;
  pid_t pid;
  napi_get_array_length(env, argv[0], &n);
  for (uint32_t i = 0; i < n && kept < MAX_FDS; i++) {
    napi_value value;
    napi_get_element(env, argv[0], i, &value);
    keep[kept++] = int_arg(env, value);
  }
  count = open_fds(inherited, 1024);
  if (count < 0 || count >= 1024) {
    errno = EMFILE;
    return fail(env, "listing descriptors");
  }
  for (int i = 0; i < count; i++)
    if (fstat(inherited[i], &before[i]) != 0)
      before[i].st_ino = 0;
  inheritable_mappings();
  zygote = getpid();
  pid = fork();
  if (pid < 0)
    return fail(env, "fork");
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    for (int i = 0; i < count; i++) {
      struct stat now;
      int wanted = inherited[i] <= 2 || null < 0;
      for (int j = 0; j < kept; j++)
        wanted |= inherited[i] == keep[j];
      /* a number that fork's handlers (libuv's signal lock) gave a new file is the child's */
      wanted |= fstat(inherited[i], &now) != 0 || now.st_ino != before[i].st_ino ||
                now.st_dev != before[i].st_dev;
      if (!wanted && dup3(null, inherited[i], O_CLOEXEC) < 0)
        _exit(70);
    }
    if (null < 0 || napi_get_uv_event_loop(env, &loop) != 0 || loop == NULL ||
        uv_loop_fork(loop) != 0) {
      dprintf(2, "pinbench zygote: the child cannot have an event loop of its own\n");
      _exit(70);
    }
    close(null);
  }
  return number(env, pid);
}

/* One message and the descriptors it carries: [text, [fd...]], or null at end of stream. */
static napi_value z_recv(napi_env env, napi_callback_info info) {
  ARGS(1);
  int fd = int_arg(env, argv[0]);
  static char buffer[MAX_MESSAGE];
  char control[CMSG_SPACE(MAX_FDS * sizeof(int))];
  struct iovec iov = {buffer, sizeof buffer};
  struct msghdr msg = {0};
  struct cmsghdr *cmsg;
  napi_value out, text, fds;
  uint32_t count = 0;
  ssize_t size;
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  do
    size = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC);
  while (size < 0 && errno == EINTR);
  if (size < 0)
    return fail(env, "recvmsg");
  napi_create_array_with_length(env, 0, &fds);
  for (cmsg = CMSG_FIRSTHDR(&msg); cmsg != NULL; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS) {
      size_t n = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      int *received = (int *)CMSG_DATA(cmsg);
      for (size_t i = 0; i < n; i++)
        napi_set_element(env, fds, count++, number(env, received[i]));
    }
  }
  if (size == 0 && count == 0) {
    napi_get_null(env, &out);
    return out;
  }
  napi_create_string_utf8(env, buffer, (size_t)size, &text);
  napi_create_array_with_length(env, 2, &out);
  napi_set_element(env, out, 0, text);
  napi_set_element(env, out, 1, fds);
  return out;
}

static napi_value z_send(napi_env env, napi_callback_info info) {
  ARGS(2);
  int fd = int_arg(env, argv[0]);
  static char buffer[65536];
  size_t size = 0;
  napi_get_value_string_utf8(env, argv[1], buffer, sizeof buffer, &size);
  if (send(fd, buffer, size, MSG_NOSIGNAL) < 0)
    return fail(env, "send");
  return NULL;
}

static napi_value z_close(napi_env env, napi_callback_info info) {
  ARGS(1);
  close(int_arg(env, argv[0]));
  return NULL;
}

static napi_value z_exit(napi_env env, napi_callback_info info) {
  ARGS(1);
  _exit(argc > 0 ? int_arg(env, argv[0]) & 255 : 0);
  return NULL;
}

static napi_value z_getpid(napi_env env, napi_callback_info info) {
  (void)info;
  return number(env, getpid());
}

/* This process adopts its descendants' orphans, so `end` can leave nothing behind. */
static napi_value z_subreaper(napi_env env, napi_callback_info info) {
  (void)info;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    return fail(env, "PR_SET_CHILD_SUBREAPER");
  return NULL;
}

/* Kill every child this process has (its own and the orphans it adopted), reap them, until
 * none is left: orphans of a killed child become ours and are killed on the next round. As pid
 * 1 of its namespace (the program's zygote) that is every other process there, which kill(-1)
 * reaches at once; else they are read from /proc, which shows this namespace's pids. */
static void kill_children(void) {
  for (;;) {
    if (getpid() == 1) {
      kill(-1, SIGKILL);
      if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
        return;
      continue;
    }
    char path[300], line[4096];
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *task;
    while (tasks != NULL && (task = readdir(tasks)) != NULL) {
      FILE *children;
      if (task->d_name[0] == '.')
        continue;
      snprintf(path, sizeof path, "/proc/self/task/%s/children", task->d_name);
      children = fopen(path, "re");
      if (children == NULL)
        continue;
      while (fscanf(children, "%4095s", line) == 1)
        kill((pid_t)atoi(line), SIGKILL);
      fclose(children);
    }
    if (tasks != NULL)
      closedir(tasks);
    if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
      return;
  }
}

/* End the execution's child: kill it (if it is still running), its wait status, then every
 * process it left. */
static napi_value z_end(napi_env env, napi_callback_info info) {
  ARGS(1);
  pid_t pid = int_arg(env, argv[0]);
  int status = 0;
  kill(pid, SIGKILL);
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = SIGKILL;
      break;
    }
  }
  kill_children();
  return number(env, status);
}

static napi_value z_setns(napi_env env, napi_callback_info info) {
  ARGS(2);
  if (setns(int_arg(env, argv[0]), int_arg(env, argv[1])) != 0)
    return fail(env, "setns");
  return NULL;
}

/* A mount namespace of this process's own, its mounts private to it. */
static napi_value z_unshare_mounts(napi_env env, napi_callback_info info) {
  (void)info;
  if (unshare(CLONE_NEWNS) != 0)
    return fail(env, "unshare");
  if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return fail(env, "mount --make-rprivate /");
  return NULL;
}

/* /proc of this process's pid namespace (the zygote is its pid 1). */
static napi_value z_mount_proc(napi_env env, napi_callback_info info) {
  (void)info;
  if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    return fail(env, "mount /proc");
  return NULL;
}

/* A private tmpfs of `bytes` at `path`, mode 0700. */
static napi_value z_mount_tmpfs(napi_env env, napi_callback_info info) {
  ARGS(2);
  char path[4096], options[64];
  size_t size = 0;
  double bytes = 0;
  napi_get_value_string_utf8(env, argv[0], path, sizeof path, &size);
  napi_get_value_double(env, argv[1], &bytes);
  snprintf(options, sizeof options, "size=%llu,mode=0700", (unsigned long long)bytes);
  mkdir(path, 0700);
  if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options) != 0)
    return fail(env, "mount tmpfs");
  return NULL;
}

/* Descriptors into place: pairs [from, to] (from -1: /dev/null); each `from` is closed after.
 * Sources are first moved above every target, so no dup2 overwrites a source still needed. */
static napi_value z_move_fds(napi_env env, napi_callback_info info) {
  ARGS(1);
  uint32_t n = 0;
  int from[MAX_FDS], to[MAX_FDS], high = 0;
  napi_get_array_length(env, argv[0], &n);
  if (n > MAX_FDS) {
    errno = EINVAL;
    return fail(env, "move_fds");
  }
  for (uint32_t i = 0; i < n; i++) {
    napi_value pair, value;
    napi_get_element(env, argv[0], i, &pair);
    napi_get_element(env, pair, 0, &value);
    from[i] = int_arg(env, value);
    napi_get_element(env, pair, 1, &value);
    to[i] = int_arg(env, value);
    if (to[i] > high)
      high = to[i];
  }
  for (uint32_t i = 0; i < n; i++) {
    int moved = from[i] < 0 ? open("/dev/null", O_RDWR | O_CLOEXEC)
                            : fcntl(from[i], F_DUPFD_CLOEXEC, high + 1);
    if (moved < 0)
      return fail(env, "move_fds");
    if (from[i] >= 0)
      close(from[i]);
    from[i] = moved;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (dup2(from[i], to[i]) < 0) /* dup2's copy is inheritable */
      return fail(env, "dup2");
    close(from[i]);
  }
  return NULL;
}

/* The last steps before untrusted code: limits [resource, soft, hard]..., no supplementary
 * groups, the uid (and gid), not dumpable, killed with the zygote, no new privileges, the
 * syscall filter (libseccomp's BPF, as the Python runner installs it). */
static napi_value z_confine(napi_env env, napi_callback_info info) {
  ARGS(3);
  int32_t uid = int_arg(env, argv[0]);
  uint32_t n = 0;
  void *bpf = NULL;
  size_t bpf_size = 0;
  napi_get_array_length(env, argv[1], &n);
  for (uint32_t i = 0; i < n; i++) {
    napi_value triple, value;
    double numbers[3];
    struct rlimit limit;
    napi_get_element(env, argv[1], i, &triple);
    for (uint32_t j = 0; j < 3; j++) {
      napi_get_element(env, triple, j, &value);
      napi_get_value_double(env, value, &numbers[j]);
    }
    /* negative or beyond 2^63: unlimited (Python's RLIM_INFINITY is -1) */
    limit.rlim_cur = numbers[1] < 0 || numbers[1] > 9.2e18 ? RLIM_INFINITY : (rlim_t)numbers[1];
    limit.rlim_max = numbers[2] < 0 || numbers[2] > 9.2e18 ? RLIM_INFINITY : (rlim_t)numbers[2];
    if (setrlimit((int)numbers[0], &limit) != 0)
      return fail(env, "setrlimit");
  }
  if (uid >= 0) {
    if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 ||
        setresuid(uid, uid, uid) != 0)
      return fail(env, "dropping privileges");
    if (getuid() != (uid_t)uid || geteuid() != (uid_t)uid) {
      errno = EPERM;
      return fail(env, "dropping privileges");
    }
  }
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
    return fail(env, "prctl");
  if (getppid() != zygote) { /* the zygote is gone already */
    errno = ESRCH;
    return fail(env, "zygote");
  }
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return fail(env, "no_new_privs");
  napi_get_buffer_info(env, argv[2], &bpf, &bpf_size);
  if (bpf_size > 0) {
    struct sock_fprog prog = {(unsigned short)(bpf_size / sizeof(struct sock_filter)),
                              (struct sock_filter *)bpf};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
      return fail(env, "seccomp");
  }
  return NULL;
}

static void define(napi_env env, napi_value exports, const char *name, napi_callback call) {
  napi_value fn;
  napi_create_function(env, name, (size_t)-1, call, NULL, &fn);
  napi_set_named_property(env, exports, name, fn);
}

__attribute__((visibility("default"))) napi_value napi_register_module_v1(napi_env env,
                                                                          napi_value exports) {
  define(env, exports, "fork", z_fork);
  define(env, exports, "recv", z_recv);
  define(env, exports, "send", z_send);
  define(env, exports, "close", z_close);
  define(env, exports, "exit", z_exit);
  define(env, exports, "getpid", z_getpid);
  define(env, exports, "subreaper", z_subreaper);
  define(env, exports, "end", z_end);
  define(env, exports, "setns", z_setns);
  define(env, exports, "unshareMounts", z_unshare_mounts);
  define(env, exports, "mountProc", z_mount_proc);
  define(env, exports, "mountTmpfs", z_mount_tmpfs);
  define(env, exports, "moveFds", z_move_fds);
  define(env, exports, "confine", z_confine);
  return exports;
}
