/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The debugfs plumbing the selftests' C engines share: a directory
 * /sys/kernel/debug/NAME/ with a "ctl" file, whose write() runs one command
 * and returns the length written, or the command's negative errno, and the
 * engine's own read-only files ("stats", "log").
 *
 * The includer defines, before including this:
 *   static int run_cmd(char *cmd);            one command, white space trimmed
 *   static bool ctl_unlocked(const char *cmd); whether it runs without
 *                                               ctl_lock (commands that block)
 * Commands otherwise run one at a time, under ctl_lock.
 */
#ifndef _UTRACE_TEST_CTL_H
#define _UTRACE_TEST_CTL_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <utrace_rs.h>

static DEFINE_MUTEX(ctl_lock);

static ssize_t ctl_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[128], *cmd;
	int ret;

	if (len == 0 || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	cmd = strim(buf);
	if (ctl_unlocked(cmd)) {
		ret = run_cmd(cmd);
	} else {
		mutex_lock(&ctl_lock);
		ret = run_cmd(cmd);
		mutex_unlock(&ctl_lock);
	}
	return ret < 0 ? ret : len;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.write = ctl_write,
};

static struct dentry *ctl_dir;

/*
 * Checks the API version of the loaded utrace_rs.ko, then makes
 * /sys/kernel/debug/@name/ with "ctl"; the includer adds its files to
 * ctl_dir.
 */
static int ctl_create(const char *name)
{
	if (utrace_api_version() != UTRACE_RS_API_VERSION) {
		pr_err("%s: utrace_rs API version %u, built for %u\n", name,
		       utrace_api_version(), UTRACE_RS_API_VERSION);
		return -EINVAL;
	}
	ctl_dir = debugfs_create_dir(name, NULL);
	debugfs_create_file("ctl", 0200, ctl_dir, NULL, &ctl_fops);
	return 0;
}

/* Removes the directory; waits for file operations in flight. */
static void ctl_remove(void)
{
	debugfs_remove_recursive(ctl_dir);
}

#endif
