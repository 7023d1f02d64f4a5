// SPDX-License-Identifier: GPL-2.0
/*
 * procconn OUT CMD [ARGS...]: the kernel's proc connector as an oracle.
 * Listens to the process events (NETLINK_CONNECTOR, CN_IDX_PROC; needs
 * CAP_NET_ADMIN), runs CMD and writes to OUT, one a line, what the descendants of
 * CMD's first child did (CMD is a tracer such as `utrace events -- PROG`,
 * whose first child is PROG; that fork itself and CMD's own events are left
 * out, and so is that child's first exec: utrace starts a command through
 * itself, `utrace __exec -- PROG`, which stops until the tracer attached and
 * then execs PROG):
 *   clone TID            a new thread or process (its thread id)
 *   exec TID             an exec (the thread id after it)
 *   exit TID STATUS      a thread's exit: exited=N or killed
 * Exits with CMD's exit
 * status, 3 if the connector dropped events (ENOBUFS): then nothing can
 * be compared, 4 if the kernel has no connector.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include "progs.h"

#define MAX_TREE 4096

static pid_t tree[MAX_TREE];
static int ntree;
static pid_t tracer, root;
static FILE *out;
static int launched;

static int in_tree(pid_t tgid)
{
	int i;

	for (i = 0; i < ntree; i++)
		if (tree[i] == tgid)
			return 1;
	return 0;
}

static void add_tree(pid_t tgid)
{
	if (ntree == MAX_TREE) {
		fprintf(stderr, "procconn: more than %d processes\n", MAX_TREE);
		exit(2);
	}
	tree[ntree++] = tgid;
}

static int listen_proc(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) req = {
		.nl = { .nlmsg_len = sizeof(req), .nlmsg_type = NLMSG_DONE },
		.cn = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
			.len = sizeof(enum proc_cn_mcast_op) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	int s, buf = 16 << 20;

	s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (s < 0 && (errno == EPROTONOSUPPORT || errno == ENOSYS)) {
		fprintf(stderr, "procconn: no proc connector in this kernel (CONFIG_CONNECTOR)\n");
		exit(4);
	}
	if (s < 0)
		die("socket(NETLINK_CONNECTOR)");
	if (setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		die("SO_RCVBUFFORCE");
	sa.nl_pid = getpid();
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)))
		die("bind(CN_IDX_PROC)");
	req.nl.nlmsg_pid = getpid();
	if (send(s, &req, sizeof(req), 0) != sizeof(req))
		die("send(PROC_CN_MCAST_LISTEN)");
	return s;
}

static void event(const struct proc_event *ev)
{
	switch (ev->what) {
	case PROC_EVENT_FORK: {
		pid_t ptgid = ev->event_data.fork.parent_tgid;
		pid_t child = ev->event_data.fork.child_pid;
		pid_t ctgid = ev->event_data.fork.child_tgid;

		if (ptgid == tracer && child == ctgid && !root) {
			root = ctgid;
			add_tree(root);
		} else if (in_tree(ptgid)) {
			if (child == ctgid)
				add_tree(ctgid);
			fprintf(out, "clone %d\n", child);
		}
		break;
	}
	case PROC_EVENT_EXEC:
		if (ev->event_data.exec.process_tgid == root && !launched) {
			launched = 1;
			break;
		}
		if (in_tree(ev->event_data.exec.process_tgid))
			fprintf(out, "exec %d\n", ev->event_data.exec.process_pid);
		break;
	case PROC_EVENT_EXIT: {
		unsigned int code = ev->event_data.exit.exit_code;

		if (!in_tree(ev->event_data.exit.process_tgid))
			break;
		if (code & 0x7f)
			fprintf(out, "exit %d killed\n", ev->event_data.exit.process_pid);
		else
			fprintf(out, "exit %d exited=%u\n", ev->event_data.exit.process_pid,
			       (code >> 8) & 0xff);
		break;
	}
	default:
		break;
	}
}

/* Reads what is queued; returns 0 when nothing was (EAGAIN). */
static int drain(int s)
{
	char buf[65536] __attribute__((aligned(NLMSG_ALIGNTO)));
	int got = 0;

	for (;;) {
		ssize_t n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return got;
		if (n < 0 && errno == ENOBUFS) {
			fprintf(stderr, "procconn: the proc connector dropped events (ENOBUFS)\n");
			exit(3);
		}
		if (n < 0)
			die("recv");
		got = 1;
		for (nl = (struct nlmsghdr *)buf; NLMSG_OK(nl, n); nl = NLMSG_NEXT(nl, n)) {
			struct cn_msg *cn = NLMSG_DATA(nl);

			if (nl->nlmsg_type == NLMSG_ERROR || nl->nlmsg_type == NLMSG_NOOP)
				continue;
			if (cn->id.idx == CN_IDX_PROC && cn->id.val == CN_VAL_PROC)
				event((struct proc_event *)cn->data);
		}
	}
}

int main(int argc, char **argv)
{
	struct pollfd p;
	int s, status;

	if (argc < 3) {
		fprintf(stderr, "usage: procconn OUT CMD [ARGS...]\n");
		return 2;
	}
	out = fopen(argv[1], "we");
	if (!out)
		die("fopen");
	s = listen_proc();
	tracer = fork();
	if (tracer < 0)
		die("fork");
	if (tracer == 0) {
		execvp(argv[2], argv + 2);
		die("exec");
	}
	p.fd = s;
	p.events = POLLIN;
	for (;;) {
		pid_t w = waitpid(tracer, &status, WNOHANG);

		if (w < 0)
			die("waitpid");
		if (w == tracer)
			break;
		if (poll(&p, 1, 100) < 0 && errno != EINTR)
			die("poll");
		drain(s);
	}
	/*
	 * Every event of the tree was sent before the tracer saw its last
	 * process die (proc_exit_connector() runs before exit_notify()), so
	 * it is queued now.
	 */
	drain(s);
	if (fclose(out))
		die("fclose");
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
