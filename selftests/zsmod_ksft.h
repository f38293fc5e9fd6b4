/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How the zswap backend tests begin. Include it after kselftest.h: the
 * kselftest counters are per translation unit, so this must be compiled
 * into each test, not into the shared library.
 */
#ifndef ZSMOD_KSFT_H
#define ZSMOD_KSFT_H

#include <string.h>

#include "zsmod_util.h"

/*
 * Print the TAP header and @plan, point zswap at @backend (exiting with a
 * failure if zswap refuses it) and report that as the first result.
 */
static inline void begin_backend_test(const char *backend, unsigned int plan)
{
	int err;

	ksft_print_header();
	ksft_set_plan(plan);
	ksft_print_msg("backend %s\n", backend);

	err = setup_zswap(backend);
	if (err)
		ksft_exit_fail_msg("zswap refused backend %s: %s\n", backend, strerror(-err));
	ksft_test_result_pass("zswap uses %s\n", backend);
}

#endif /* ZSMOD_KSFT_H */
