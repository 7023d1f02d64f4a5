// SPDX-License-Identifier: GPL-2.0
/*
 * stepper single|block|long|read: after a byte on stdin, run a known instruction
 * sequence between two getppid() markers (first argument STEP_START, then
 * STEP_END), which utrace_test.ko's "step" command steps through, counting
 * the traps before the end marker's syscall instruction:
 *
 *   single: 10 nops, then the two movs that set up the end marker:
 *           12 instructions.
 *   block:  3 nops, jmp, 3 nops, jmp, 3 nops, the two movs: 13
 *           instructions, 2 of them taken branches.
 *   long:   a loop of 10 million rounds (20 million instructions), far
 *           more than a test lets it step: its engine goes mid-loop.
 *   read:   a read(0, buf, 2) between the markers (C, through the C
 *           library): the test lets its engine go while the stepped task
 *           sleeps in it.
 *
 * Prints "done" afterwards (the task survived its traps).
 */
#include <string.h>
#include "progs.h"

#define STEP_START 0x5354455030UL
#define STEP_END 0x5354455031UL
#define NR_GETPPID 110

/*
 * The start marker's syscall, the instructions BODY (a string of them),
 * then the two movs that set up the end marker and its syscall.
 */
#define BETWEEN_MARKERS(body)								\
	do {										\
		long nr = NR_GETPPID;							\
											\
		asm volatile("syscall\n\t" body						\
			     "mov %%rsi, %%rdi\n\t"					\
			     "mov %[nr], %%eax\n\t"					\
			     "syscall\n\t"						\
			     : "+a"(nr)							\
			     : "D"(STEP_START), "S"(STEP_END), [nr] "i"(NR_GETPPID)	\
			     : "rcx", "r11", "memory");					\
	} while (0)

static void single(void)
{
	BETWEEN_MARKERS(".rept 10\n\tnop\n\t.endr\n\t");
}

static void block(void)
{
	BETWEEN_MARKERS("nop\n\tnop\n\tnop\n\t"
			"jmp 1f\n"
			"1:\n\t"
			"nop\n\tnop\n\tnop\n\t"
			"jmp 2f\n"
			"2:\n\t"
			"nop\n\tnop\n\tnop\n\t");
}

static void longloop(void)
{
	BETWEEN_MARKERS("mov $10000000, %%ecx\n"
			"1:\n\t"
			"dec %%ecx\n\t"
			"jnz 1b\n\t");
}

static void readstep(void)
{
	char buf[2];

	syscall(NR_GETPPID, STEP_START);
	if (read(0, buf, 2) < 0)
		die("read");
	syscall(NR_GETPPID, STEP_END);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	wait_go();
	if (!strcmp(argv[1], "single"))
		single();
	else if (!strcmp(argv[1], "block"))
		block();
	else if (!strcmp(argv[1], "long"))
		longloop();
	else if (!strcmp(argv[1], "read"))
		readstep();
	else
		return 2;
	printf("done\n");
	return 0;
}
