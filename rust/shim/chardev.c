// SPDX-License-Identifier: GPL-2.0
/*
 * The files engines give user space (event streams, control files) are
 * misc character devices, /dev/<name>: they need no mounted file system and
 * kernel lockdown leaves them alone (lockdown=integrity refuses writable
 * debugfs files, and Debian's kernels lock down under Secure Boot). Rust on
 * 6.12 has no miscdevice abstraction, and struct miscdevice's registration
 * wants a stable name and a list of our own names (a second device of the
 * same name would make sysfs warn with a stack trace): that is this file.
 *
 * misc_open() calls the device's open under misc_mtx, and
 * misc_deregister() takes misc_mtx: once utrace_shim_chardev_destroy()
 * returns no open of the device is in progress or can start, so @data need
 * only live until then (files already open keep what their open took).
 */
#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "shim.h"

/* Longest name, NUL excluded. */
#define UTRACE_CHARDEV_NAME_MAX 31

struct utrace_chardev {
	struct miscdevice misc;
	struct list_head node;
	void *data;
	char name[UTRACE_CHARDEV_NAME_MAX + 1];
};

/* The names of our devices, for -EEXIST. */
static DEFINE_MUTEX(utrace_chardev_lock);
static LIST_HEAD(utrace_chardevs);

/* Letters, digits, '_' and '-', not empty, not too long: a plain /dev name. */
static bool utrace_chardev_name_ok(const char *name)
{
	size_t len = strnlen(name, UTRACE_CHARDEV_NAME_MAX + 1);
	size_t i;

	if (len == 0 || len > UTRACE_CHARDEV_NAME_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

/*
 * Registers /dev/@name with @mode (0400: root reads; 0600: root reads and
 * writes), @fops (their .open finds @data with utrace_shim_chardev_data()).
 * ERR_PTR: -EINVAL (a name that is not a plain /dev name), -EEXIST (ours
 * already), -ENOMEM, or misc_register()'s error. May sleep.
 */
struct utrace_chardev *utrace_shim_chardev_create(const char *name, umode_t mode,
						  const struct file_operations *fops, void *data)
{
	struct utrace_chardev *c, *other;
	int err;

	if (!utrace_chardev_name_ok(name)) {
		pr_err("utrace_rs: device name '%.*s' refused: 1 to %d letters, digits, _ or -\n",
		       UTRACE_CHARDEV_NAME_MAX, name, UTRACE_CHARDEV_NAME_MAX);
		return ERR_PTR(-EINVAL);
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	strscpy(c->name, name, sizeof(c->name));
	c->data = data;
	c->misc.minor = MISC_DYNAMIC_MINOR;
	c->misc.name = c->name;
	c->misc.fops = fops;
	c->misc.mode = mode;
	mutex_lock(&utrace_chardev_lock);
	list_for_each_entry(other, &utrace_chardevs, node) {
		if (!strcmp(other->name, c->name)) {
			pr_err("utrace_rs: /dev/%s is taken by another stream or control file\n",
			       c->name);
			err = -EEXIST;
			goto out;
		}
	}
	err = misc_register(&c->misc);
	if (err) {
		pr_err("utrace_rs: cannot register /dev/%s (errno %d)\n", c->name, err);
		goto out;
	}
	list_add(&c->node, &utrace_chardevs);
out:
	mutex_unlock(&utrace_chardev_lock);
	if (err) {
		kfree(c);
		return ERR_PTR(err);
	}
	return c;
}

/*
 * Removes the device: no open runs or starts after this returns (files
 * already open stay open). May sleep.
 */
void utrace_shim_chardev_destroy(struct utrace_chardev *c)
{
	mutex_lock(&utrace_chardev_lock);
	list_del(&c->node);
	mutex_unlock(&utrace_chardev_lock);
	misc_deregister(&c->misc);
	kfree(c);
}

/* In the device's .open (and only there): its @data. */
void *utrace_shim_chardev_data(struct file *file)
{
	struct miscdevice *misc = file->private_data;

	return container_of(misc, struct utrace_chardev, misc)->data;
}
