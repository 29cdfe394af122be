/* jit.c - PTX to cubin as one whole program.
 *
 * The driver's JIT linker (cuLinkAddData) compiles PTX as relocatable
 * code, like `nvcc -rdc=true`: it ignores setmaxnreg ("to maintain
 * compatibility across compilation units") and serializes wgmma around
 * any call.  On the H200 that cost the sm_90a GEMM up to 12% (tf32:
 * 0.92 -> 0.97 of cuBLASLt with whole-program code).  So PTX is compiled
 * as a whole program, in one of two ways:
 *   - ptxas, when one is found ($MMART_PTXAS, else PATH, else
 *     /usr/local/cuda/bin): its cubin goes into the disk cache;
 *   - else cuModuleLoadDataEx on the PTX itself (the driver's own JIT,
 *     which compiles whole programs; the driver's cache may answer, ours
 *     cannot: the driver does not hand out that cubin).
 * MMART_JIT=ptxas|driver|link forces one (link: the old relocatable path,
 * kept to compare).
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int mmart_jit_mode(void)
{
	const char *m = getenv("MMART_JIT");
	if (m && !strcmp(m, "link"))
		return MMART_JIT_LINK;
	if (m && !strcmp(m, "driver"))
		return MMART_JIT_DRIVER;
	if (m && !strcmp(m, "ptxas"))
		return MMART_JIT_PTXAS;
	return MMART_JIT_AUTO;
}

static int executable(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
}

/* The ptxas to use, into out; 0 when there is none.  $MMART_PTXAS set
 * but empty means none. */
int mmart_find_ptxas(char *out, size_t n)
{
	const char *env = getenv("MMART_PTXAS"), *path = getenv("PATH");

	if (env) {
		if (!*env || !executable(env) || strlen(env) >= n)
			return 0;
		snprintf(out, n, "%s", env);
		return 1;
	}
	/* absolute directories only: a relative one (".", "bin") would run
	 * whatever ptxas the process's current directory holds */
	for (const char *p = path; p && *p;) {
		size_t len = strcspn(p, ":");
		if (len && *p == '/' && len + 7 < n) {
			snprintf(out, n, "%.*s/ptxas", (int)len, p);
			if (executable(out))
				return 1;
		}
		p += len;
		if (*p == ':')
			p++;
	}
	snprintf(out, n, "/usr/local/cuda/bin/ptxas");
	return executable(out);
}

/* ptxas's -arch for this PTX on a device of compute capability
 * major.minor: the device's sm_XY, with the PTX's own suffix (a, f) when
 * the PTX targets exactly this device (sm_90a PTX needs -arch=sm_90a). */
void mmart_ptx_arch(const char *ptx, int major, int minor, char *out, size_t n)
{
	const char *t = strstr(ptx, ".target");
	unsigned num = 0;
	char suffix = 0;

	snprintf(out, n, "sm_%d%d", major, minor);
	if (!t)
		return;
	t += 7;
	while (*t == ' ' || *t == '\t')
		t++;
	if (strncmp(t, "sm_", 3))
		return;
	for (t += 3; *t >= '0' && *t <= '9' && num < 10000; t++)
		num = num * 10 + (unsigned)(*t - '0');
	if (*t == 'a' || *t == 'f')
		suffix = *t;
	if (suffix && num == (unsigned)(major * 10 + minor))
		snprintf(out, n, "sm_%d%d%c", major, minor, suffix);
}

/* What names the compiler in the cache key: its path, size and time. */
void mmart_ptxas_id(const char *ptxas, char *out, size_t n)
{
	struct stat st;
	if (stat(ptxas, &st))
		memset(&st, 0, sizeof st);
	snprintf(out, n, "ptxas=%s:%lld:%lld", ptxas, (long long)st.st_size,
		 (long long)st.st_mtime);
}

static int write_all(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	const char *p = data;
	if (fd < 0)
		return -1;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			close(fd);
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return close(fd);
}

static void *read_all(const char *path, size_t *len, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size < 0 ||
	    (unsigned long long)st.st_size > cap || !(buf = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* Seconds ptxas may take: $MMART_PTXAS_TIMEOUT (1 .. 86400), else 300
 * (the largest GEMM compiles in about a second). */
static unsigned ptxas_timeout(void)
{
	const char *e = getenv("MMART_PTXAS_TIMEOUT");
	char *end;
	unsigned long v;
	if (!e || !*e)
		return 300;
	errno = 0;
	v = strtoul(e, &end, 10);
	return errno || *end || v < 1 || v > 86400 ? 300 : (unsigned)v;
}

/* Wait for the child, at most `seconds`: NULL with its status, or why
 * not.  Polled (1 ms growing to 10 ms) so that a hung ptxas is killed;
 * with SIGCHLD ignored the status is lost (ECHILD) and the cubin cannot
 * be trusted: the caller then falls back to the driver. */
static const char *wait_child(pid_t pid, unsigned seconds, int *status)
{
	struct timespec start, now, nap = { 0, 1000000 };
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return NULL;
		if (r < 0 && errno != EINTR)
			return errno == ECHILD ? "exit status lost (SIGCHLD is ignored in this process)"
					       : "waitpid failed";
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)seconds) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return "killed after $MMART_PTXAS_TIMEOUT seconds (default 300)";
		}
		nanosleep(&nap, NULL);
		if (nap.tv_nsec < 10000000)
			nap.tv_nsec += 1000000;
	}
}

/* mmart_compile_fn: ptxas -arch=<arch> in.ptx -o out.cubin in a private
 * temporary directory, removed afterwards.  user: struct mmart_ptxas. */
mmart_status mmart_ptxas_compile(void *user, const char *ptx, void **cubin, size_t *size,
				 char *log, size_t logsize)
{
	const struct mmart_ptxas *px = user;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], in[4200], out[4200], err[4200], arch[32], archopt[48];
	mmart_status s = MMART_JIT;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st = 0;

	*cubin = NULL;
	*size = 0;
	if (snprintf(dir, sizeof dir, "%s/mmart-ptxas-XXXXXX", tmp && *tmp ? tmp : "/tmp") >=
	    (int)sizeof dir || !mkdtemp(dir)) {
		snprintf(log, logsize, "cannot make a temporary directory for ptxas: %s",
			 strerror(errno));
		return MMART_IO;
	}
	snprintf(in, sizeof in, "%s/in.ptx", dir);
	snprintf(out, sizeof out, "%s/out.cubin", dir);
	snprintf(err, sizeof err, "%s/log", dir);
	mmart_ptx_arch(ptx, px->major, px->minor, arch, sizeof arch);
	snprintf(archopt, sizeof archopt, "-arch=%s", arch);
	if (write_all(in, ptx, strlen(ptx))) {
		snprintf(log, logsize, "cannot write %s: %s", in, strerror(errno));
		s = MMART_IO;
		goto out;
	}
	char *argv[] = { (char *)px->path, archopt, in, "-o", out, NULL };
	if (posix_spawn_file_actions_init(&fa)) {
		snprintf(log, logsize, "cannot run %s", px->path);
		goto out;
	}
	int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!rc)
		rc = posix_spawn_file_actions_addopen(&fa, 1, err, O_WRONLY | O_CREAT | O_TRUNC,
						      0600);
	if (!rc)
		rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
	if (!rc)
		rc = posix_spawn(&pid, px->path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		snprintf(log, logsize, "cannot run %s: %s", px->path, strerror(rc));
		goto out;
	}
	const char *why = wait_child(pid, ptxas_timeout(), &st);
	if (why) {
		snprintf(log, logsize, "%s %s: %s", px->path, archopt, why);
		goto out;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		size_t n = 0;
		char *msg = read_all(err, &n, 1 << 16);
		snprintf(log, logsize, "%s %s failed: %s", px->path, archopt,
			 msg && n ? msg : "(no message)");
		free(msg);
		goto out;
	}
	if (!(*cubin = read_all(out, size, 1u << 30))) {
		snprintf(log, logsize, "%s wrote no cubin", px->path);
		goto out;
	}
	s = MMART_OK;
out:
	unlink(in);
	unlink(out);
	unlink(err);
	rmdir(dir);
	return s;
}
