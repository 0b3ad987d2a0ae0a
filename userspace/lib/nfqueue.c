// SPDX-License-Identifier: GPL-2.0
/*
 * The NFQUEUE listener table. Each line of the proc file is one bound
 * queue: "queue portid total copy_mode copy_range queue_dropped
 * user_dropped id_sequence 1" (nfnetlink_queue.c, seq_show). A queue
 * missing from the file has no listener.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>

#include "nfqueue.h"

int afw_nfqueue_read(FILE *f, struct afw_nfqueue_stat *out, unsigned int max)
{
	unsigned int n = 0, queue, mode, range, one;
	uint32_t portid, total, dropped, udropped, seq;
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%u %" SCNu32 " %" SCNu32 " %u %u %" SCNu32 " %" SCNu32 " %" SCNu32
			   " %u", &queue, &portid, &total, &mode, &range, &dropped, &udropped, &seq,
			   &one) != 9 || queue > UINT16_MAX)
			return -EINVAL;
		if (n == max)
			continue;
		out[n++] = (struct afw_nfqueue_stat){
			.queue = (uint16_t)queue, .portid = portid, .waiting = total,
			.dropped = dropped, .user_dropped = udropped,
		};
	}
	return (int)n;
}

const struct afw_nfqueue_stat *afw_nfqueue_find(const struct afw_nfqueue_stat *s, unsigned int n,
						uint16_t queue)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (s[i].queue == queue)
			return &s[i];
	return NULL;
}
