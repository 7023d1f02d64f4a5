// SPDX-License-Identifier: GPL-2.0
/*
 * Control files for engines (utrace_file_create): a root-only debugfs file
 * whose reads show a snapshot made at open and whose writes are handed to
 * the engine as one string. debugfs_create_file()'s proxy makes removal wait
 * for reads and writes in flight, so no engine callback runs after
 * utrace_file_destroy().
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <utrace_rs.h>

#include "shim.h"

/* What show may write at one open. */
#define UTRACE_FILE_SHOW_MAX (16 * 1024)
/* The longest write. */
#define UTRACE_FILE_STORE_MAX 1024

struct utrace_file {
	struct dentry *dentry;
	void *data;
	size_t (*show)(void *data, char *buf, size_t len);
	int (*store)(void *data, const char *text);
};

/* One open's snapshot. */
struct utrace_file_text {
	size_t len;
	char buf[];
};

static int utrace_file_open(struct inode *inode, struct file *file)
{
	struct utrace_file *uf = inode->i_private;
	struct utrace_file_text *text;

	text = kvmalloc(sizeof(*text) + UTRACE_FILE_SHOW_MAX, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	text->len = 0;
	if (uf->show && (file->f_mode & FMODE_READ))
		text->len = min_t(size_t, uf->show(uf->data, text->buf, UTRACE_FILE_SHOW_MAX),
				  UTRACE_FILE_SHOW_MAX);
	file->private_data = text;
	return nonseekable_open(inode, file);
}

static ssize_t utrace_file_read(struct file *file, char __user *ubuf, size_t len, loff_t *pos)
{
	struct utrace_file_text *text = file->private_data;

	return simple_read_from_buffer(ubuf, len, pos, text->buf, text->len);
}

static ssize_t utrace_file_write(struct file *file, const char __user *ubuf, size_t len,
				 loff_t *pos)
{
	struct utrace_file *uf = file_inode(file)->i_private;
	char *text;
	int ret;

	if (!uf->store)
		return -EPERM;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (len > UTRACE_FILE_STORE_MAX)
		return -E2BIG;
	text = memdup_user_nul(ubuf, len);
	if (IS_ERR(text))
		return PTR_ERR(text);
	ret = uf->store(uf->data, text);
	kfree(text);
	return ret < 0 ? ret : len;
}

static int utrace_file_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static const struct file_operations utrace_file_fops = {
	.owner = THIS_MODULE,
	.open = utrace_file_open,
	.read = utrace_file_read,
	.write = utrace_file_write,
	.release = utrace_file_release,
};

struct utrace_file *utrace_file_create(const char *name, void *data,
				       size_t (*show)(void *data, char *buf, size_t len),
				       int (*store)(void *data, const char *text))
{
	struct utrace_file *uf;
	struct dentry *d;

	uf = kzalloc(sizeof(*uf), GFP_KERNEL);
	if (!uf)
		return ERR_PTR(-ENOMEM);
	uf->data = data;
	uf->show = show;
	uf->store = store;
	d = debugfs_create_file(name, store ? 0600 : 0400, utrace_shim_debugfs_dir(), uf,
				&utrace_file_fops);
	if (IS_ERR(d)) {
		kfree(uf);
		return ERR_CAST(d);
	}
	uf->dentry = d;
	return uf;
}
EXPORT_SYMBOL_GPL(utrace_file_create);

void utrace_file_destroy(struct utrace_file *uf)
{
	/* Waits for open, read and write calls in flight (the debugfs proxy). */
	debugfs_remove(uf->dentry);
	kfree(uf);
}
EXPORT_SYMBOL_GPL(utrace_file_destroy);
