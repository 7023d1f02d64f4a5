// SPDX-License-Identifier: GPL-2.0
/*
 * Control files for engines (utrace_file_create): a root-only character
 * device, /dev/<name> (chardev.c), whose reads show a snapshot made at open
 * and whose writes are handed to the engine as one string.
 *
 * The engine's callbacks and data belong to another module, which may go
 * once utrace_file_destroy() returned, while a file is still open: every
 * callback runs under @lock read-held and only while !@dead; destroy sets
 * @dead under @lock write-held, so it waits for the callbacks in flight and
 * none runs after it. Open files hold a reference to the utrace_file (not
 * to the engine).
 */
#include <linux/capability.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/rwsem.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <utrace_rs.h>

#include "shim.h"

/* What show may write at one open. */
#define UTRACE_FILE_SHOW_MAX (16 * 1024)
/* The longest write. */
#define UTRACE_FILE_STORE_MAX 1024

struct utrace_file {
	struct utrace_chardev *dev;
	struct kref ref;
	struct rw_semaphore lock;
	bool dead;
	void *data;
	size_t (*show)(void *data, char *buf, size_t len);
	int (*store)(void *data, const char *text);
};

/* One open: the file and its snapshot. */
struct utrace_file_text {
	struct utrace_file *uf;
	size_t len;
	char buf[];
};

static void utrace_file_free(struct kref *ref)
{
	kfree(container_of(ref, struct utrace_file, ref));
}

static int utrace_file_open(struct inode *inode, struct file *file)
{
	/* Valid: chardev.c's open runs before utrace_file_destroy() can. */
	struct utrace_file *uf = utrace_shim_chardev_data(file);
	struct utrace_file_text *text;

	/* Root only, whatever the node's mode (it may have been chmod'ed). */
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if ((file->f_mode & FMODE_WRITE) && !uf->store)
		return -EPERM;
	text = kvmalloc(sizeof(*text) + UTRACE_FILE_SHOW_MAX, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	text->len = 0;
	down_read(&uf->lock);
	if (uf->show && !uf->dead && (file->f_mode & FMODE_READ))
		text->len = min_t(size_t, uf->show(uf->data, text->buf, UTRACE_FILE_SHOW_MAX),
				  UTRACE_FILE_SHOW_MAX);
	up_read(&uf->lock);
	kref_get(&uf->ref);
	text->uf = uf;
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
	struct utrace_file_text *t = file->private_data;
	struct utrace_file *uf = t->uf;
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
	down_read(&uf->lock);
	ret = uf->dead ? -EIO : uf->store(uf->data, text);
	up_read(&uf->lock);
	kfree(text);
	return ret < 0 ? ret : len;
}

static int utrace_file_release(struct inode *inode, struct file *file)
{
	struct utrace_file_text *text = file->private_data;

	kref_put(&text->uf->ref, utrace_file_free);
	kvfree(text);
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
	struct utrace_chardev *dev;
	struct utrace_file *uf;

	uf = kzalloc(sizeof(*uf), GFP_KERNEL);
	if (!uf)
		return ERR_PTR(-ENOMEM);
	kref_init(&uf->ref);
	init_rwsem(&uf->lock);
	uf->data = data;
	uf->show = show;
	uf->store = store;
	dev = utrace_shim_chardev_create(name, store ? 0600 : 0400, &utrace_file_fops, uf);
	if (IS_ERR(dev)) {
		kfree(uf);
		return ERR_CAST(dev);
	}
	uf->dev = dev;
	return uf;
}
EXPORT_SYMBOL_GPL(utrace_file_create);

void utrace_file_destroy(struct utrace_file *uf)
{
	/* No open after this, then no callback (waits for those running). */
	utrace_shim_chardev_destroy(uf->dev);
	down_write(&uf->lock);
	uf->dead = true;
	up_write(&uf->lock);
	kref_put(&uf->ref, utrace_file_free);
}
EXPORT_SYMBOL_GPL(utrace_file_destroy);
