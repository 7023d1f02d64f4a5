// SPDX-License-Identifier: GPL-2.0
/*
 * hsload P K: the handoff stress workload. Makes /tmp/hs/<p>.<i> symlinks
 * to itself, waits for a byte on stdin, then starts P processes; process p
 * execs /tmp/hs/<p>.0, which execs /tmp/hs/<p>.1, ... up to <p>.<K-1>, which
 * exits. Every step also forks a child named c<p>.<i> that exits at once.
 * So every step is one EXEC, one CLONE and one child DEATH with known names,
 * and the engines' records can be reconciled exactly. Exits 0 when all P exited 0.
 * Invoked as <p>.<i>: the step itself.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "progs.h"

static void step(const char *self_name, int k)
{
	const char *base = strrchr(self_name, '/');
	char next[64];
	int p, i;

	base = base ? base + 1 : self_name;
	if (sscanf(base, "%d.%d", &p, &i) != 2)
		exit(3);
	{
		char name[16];
		int status;
		pid_t pid = fork();

		if (pid < 0)
			exit(6);
		if (pid == 0) {
			snprintf(name, sizeof(name), "c%d.%d", p, i);
			prctl(PR_SET_NAME, name);
			_exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
			exit(7);
	}
	if (i + 1 >= k)
		exit(0);
	snprintf(next, sizeof(next), "/tmp/hs/%d.%d", p, i + 1);
	{
		char karg[16];

		snprintf(karg, sizeof(karg), "%d", k);
		execl(next, next, "step", karg, (char *)NULL);
	}
	exit(4);
}

int main(int argc, char **argv)
{
	int p, i, P, K, status, bad = 0;
	char path[64];

	if (argc == 3 && !strcmp(argv[1], "step"))
		step(argv[0], atoi(argv[2]));
	if (argc != 3)
		return 2;
	P = atoi(argv[1]);
	K = atoi(argv[2]);
	mkdir("/tmp/hs", 0755);
	for (p = 0; p < P; p++)
		for (i = 0; i < K; i++) {
			snprintf(path, sizeof(path), "/tmp/hs/%d.%d", p, i);
			unlink(path);
			if (symlink("/utrace/bin/hsload", path))
				die(path);
		}
	wait_go();
	for (p = 0; p < P; p++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork");
		if (pid == 0) {
			char karg[16];

			snprintf(path, sizeof(path), "/tmp/hs/%d.0", p);
			snprintf(karg, sizeof(karg), "%d", K);
			execl(path, path, "step", karg, (char *)NULL);
			_exit(5);
		}
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			bad++;
	return bad ? 1 : 0;
}
