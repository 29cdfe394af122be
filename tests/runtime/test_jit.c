/* test_jit.c - whole-program compilation of PTX (runtime/jit.c) without a
 * driver: the -arch ptxas gets, finding ptxas, running it (a fake one
 * that records its arguments, a failing one, and the toolkit's when it is
 * there), and that nothing is left in the temporary directory. */
#define _XOPEN_SOURCE 700
#define _DEFAULT_SOURCE
#include "internal.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_DETAIL() mmart_last_error()
#include "../unit/check.h"

static char tmp[256];

static void test_arch(void)
{
	static const struct {
		const char *ptx;
		int major, minor;
		const char *want;
	} c[] = {
		{ ".version 8.0\n.target sm_90a\n", 9, 0, "sm_90a" },
		{ ".version 8.0\n.target sm_90\n", 9, 0, "sm_90" },
		{ ".version 7.0\n.target sm_80\n", 9, 0, "sm_90" },     /* older PTX: the device */
		{ ".version 8.7\n.target sm_100a\n", 10, 0, "sm_100a" },
		{ ".version 8.8\n.target sm_100f\n", 10, 0, "sm_100f" },
		{ ".version 8.7\n.target sm_100a\n", 12, 0, "sm_120" },  /* not this device's */
		{ ".version 8.0\n.target\tsm_90a, texmode_independent\n", 9, 0, "sm_90a" },
		{ "// no target\n", 8, 6, "sm_86" },
		{ ".target sm_99999999999999999a\n", 9, 0, "sm_90" },
	};
	char out[32];
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		mmart_ptx_arch(c[i].ptx, c[i].major, c[i].minor, out, sizeof out);
		CHECK(!strcmp(out, c[i].want), "arch %zu: %s, expected %s", i, out, c[i].want);
	}
}

static void script(const char *path, const char *body)
{
	FILE *f = fopen(path, "w");
	CHECK(f != NULL, "cannot write %s", path);
	if (!f)
		return;
	fprintf(f, "#!/bin/sh\n%s", body);
	fclose(f);
	chmod(path, 0755);
}

static int dir_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += !strncmp(e->d_name, prefix, strlen(prefix));
	closedir(d);
	return n;
}

static void test_find(void)
{
	char p[4096], fake[400];
	snprintf(fake, sizeof fake, "%s/fake-ptxas", tmp);
	script(fake, "exit 0\n");
	setenv("MMART_PTXAS", fake, 1);
	CHECK(mmart_find_ptxas(p, sizeof p) && !strcmp(p, fake), "MMART_PTXAS: %s", p);
	setenv("MMART_PTXAS", "", 1);
	CHECK(!mmart_find_ptxas(p, sizeof p), "empty MMART_PTXAS means none: %s", p);
	setenv("MMART_PTXAS", "/nonexistent/ptxas", 1);
	CHECK(!mmart_find_ptxas(p, sizeof p), "a missing MMART_PTXAS is none: %s", p);
	unsetenv("MMART_PTXAS");
	/* on PATH: the first directory that has one */
	char old[8192], dir[300], path[700];
	snprintf(old, sizeof old, "%s", getenv("PATH") ? getenv("PATH") : "");
	snprintf(dir, sizeof dir, "%s/bin", tmp);
	mkdir(dir, 0700);
	snprintf(fake, sizeof fake, "%s/ptxas", dir);
	script(fake, "exit 0\n");
	snprintf(path, sizeof path, "/nonexistent::%s:/usr/bin", dir);
	setenv("PATH", path, 1);
	CHECK(mmart_find_ptxas(p, sizeof p) && !strcmp(p, fake), "PATH: %s", p);
	/* a relative PATH entry is not searched: no ptxas from the current
	 * directory (the toolkit's, if any, is found instead) */
	char cwd[4096];
	if (getcwd(cwd, sizeof cwd) && !chdir(tmp)) {
		setenv("PATH", "bin:.", 1);
		int found = mmart_find_ptxas(p, sizeof p);
		CHECK(!found || p[0] == '/', "relative PATH entry searched: %s", p);
		CHECK(chdir(cwd) == 0, "back to %s", cwd);
	}
	setenv("PATH", old, 1);
	/* the id names path, size and time: a changed ptxas is a new key */
	char id1[4200], id2[4200];
	mmart_ptxas_id(fake, id1, sizeof id1);
	script(fake, "exit 0\n# longer now\n");
	mmart_ptxas_id(fake, id2, sizeof id2);
	CHECK(strstr(id1, fake) && strcmp(id1, id2), "ptxas id: %s / %s", id1, id2);
}

static void test_compile(void)
{
	char fake[300], args[300], body[1200], log[512];
	struct mmart_ptxas px = { fake, 9, 0 };
	const char *ptx = ".version 8.0\n.target sm_90a\n.address_size 64\n";
	void *cubin = NULL;
	size_t size = 0;

	setenv("TMPDIR", tmp, 1);
	snprintf(fake, sizeof fake, "%s/fake-ptxas", tmp);
	snprintf(args, sizeof args, "%s/args", tmp);
	/* records its arguments, copies the PTX to -o as the "cubin" */
	snprintf(body, sizeof body,
		 "echo \"$@\" > %s\nout=; prev=\nfor a; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
		 "cat \"$2\" > \"$out\"\n", args);
	script(fake, body);
	mmart_status s = mmart_ptxas_compile(&px, ptx, &cubin, &size, log, sizeof log);
	CHECK(s == MMART_OK && cubin && size == strlen(ptx) && !memcmp(cubin, ptx, size),
	      "fake ptxas: status %d size %zu log %s", (int)s, size, log);
	free(cubin);
	FILE *f = fopen(args, "r");
	char line[512] = "";
	if (f) {
		if (!fgets(line, sizeof line, f))
			line[0] = '\0';
		fclose(f);
	}
	CHECK(!strncmp(line, "-arch=sm_90a ", 13) && strstr(line, "/in.ptx -o ") &&
	      strstr(line, "/out.cubin"), "ptxas arguments: %s", line);
	CHECK(dir_entries(tmp, "mmart-ptxas-") == 0, "temporary directory left behind");

	/* a failing ptxas: MMART_JIT with its message, nothing left behind */
	script(fake, "echo 'ptxas fatal: something is wrong' >&2\nexit 3\n");
	s = mmart_ptxas_compile(&px, ptx, &cubin, &size, log, sizeof log);
	CHECK(s == MMART_JIT && strstr(log, "something is wrong") && !cubin,
	      "failing ptxas: %d %s", (int)s, log);
	CHECK(dir_entries(tmp, "mmart-ptxas-") == 0, "temporary directory left behind (failure)");

	/* a hung ptxas is killed after $MMART_PTXAS_TIMEOUT seconds */
	script(fake, "exec sleep 30\n");
	setenv("MMART_PTXAS_TIMEOUT", "1", 1);
	time_t t0 = time(NULL);
	s = mmart_ptxas_compile(&px, ptx, &cubin, &size, log, sizeof log);
	time_t took = time(NULL) - t0;
	unsetenv("MMART_PTXAS_TIMEOUT");
	CHECK(s == MMART_JIT && strstr(log, "killed after") && !cubin && took < 10,
	      "hung ptxas: %d after %lld s: %s", (int)s, (long long)took, log);
	CHECK(dir_entries(tmp, "mmart-ptxas-") == 0, "temporary directory left behind (timeout)");

	/* with SIGCHLD ignored the exit status is lost: no cubin is trusted
	 * (a ptxas that writes half a cubin and fails would look fine) */
	script(fake, body);
	signal(SIGCHLD, SIG_IGN);
	s = mmart_ptxas_compile(&px, ptx, &cubin, &size, log, sizeof log);
	signal(SIGCHLD, SIG_DFL);
	CHECK(s == MMART_JIT && strstr(log, "SIGCHLD") && !cubin, "SIGCHLD ignored: %d %s",
	      (int)s, log);

	/* the toolkit's ptxas, when this machine has one: a real cubin (ELF) */
	const char *real = "/usr/local/cuda/bin/ptxas";
	if (!access(real, X_OK)) {
		struct mmart_ptxas rp = { real, 9, 0 };
		const char *k = ".version 8.0\n.target sm_90a\n.address_size 64\n"
				".visible .entry k(.param .u64 p)\n{\n\t.reg .b64 %rd<2>;\n"
				"\tld.param.u64 %rd1, [p];\n\tst.global.u32 [%rd1], 7;\n\tret;\n}\n";
		s = mmart_ptxas_compile(&rp, k, &cubin, &size, log, sizeof log);
		CHECK(s == MMART_OK && size > 4 && !memcmp(cubin, "\177ELF", 4),
		      "toolkit ptxas: %d %s", (int)s, log);
		free(cubin);
		s = mmart_ptxas_compile(&rp, ".version 8.0\n.target sm_90a\nbogus;\n", &cubin, &size,
					log, sizeof log);
		CHECK(s == MMART_JIT && strstr(log, "ptxas"), "toolkit ptxas on bad PTX: %s", log);
	} else {
		printf("note: no %s here; the real-ptxas case did not run\n", real);
	}
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/mmart-jit-test-XXXXXX");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_arch();
	test_find();
	test_compile();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
	if (system(cmd))
		printf("note: could not remove %s\n", tmp);
	return check_summary();
}
