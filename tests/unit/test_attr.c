// SPDX-License-Identifier: GPL-2.0
/*
 * afw_attrs_parse(), which every reply and told message goes through: what
 * it takes and refuses by type and length, and that it decides every input
 * as the loop over libmnl's own calls it replaced (mnl_attr_ok(),
 * mnl_attr_validate(), mnl_attr_next()) would, over a million mutations of
 * a well-formed set of attributes.
 */

#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>

#include "attr.h"
#include "check.h"

enum { T_U8 = 1, T_U16, T_U32, T_U64, T_STR, T_NSTR, T_NEST, T_BIN, T_FLAG, T_ANY, T_MAX = T_ANY };

static const enum mnl_attr_data_type types[T_MAX + 1] = {
	[T_U8] = MNL_TYPE_U8, [T_U16] = MNL_TYPE_U16, [T_U32] = MNL_TYPE_U32,
	[T_U64] = MNL_TYPE_U64, [T_STR] = MNL_TYPE_STRING, [T_NSTR] = MNL_TYPE_NUL_STRING,
	[T_NEST] = MNL_TYPE_NESTED, [T_BIN] = MNL_TYPE_BINARY, [T_FLAG] = MNL_TYPE_FLAG,
};

/* The loop afw_attrs_parse() had, every step a libmnl call. */
static int t_reference(const void *start, size_t len, const struct nlattr **tb)
{
	const struct nlattr *attr = start;
	int rem = (int)len, type;

	memset(tb, 0, (T_MAX + 1) * sizeof(*tb));
	while (mnl_attr_ok(attr, rem)) {
		type = mnl_attr_get_type(attr);
		if (type <= T_MAX) {
			if (types[type] != MNL_TYPE_UNSPEC && mnl_attr_validate(attr, types[type]) < 0)
				return -1;
			tb[type] = attr;
		}
		rem -= MNL_ALIGN(attr->nla_len);
		attr = mnl_attr_next(attr);
	}
	return rem ? -1 : 0;
}

static size_t t_put(char *buf, size_t off, uint16_t type, const void *p, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(buf + off);

	a->nla_len = (uint16_t)(MNL_ATTR_HDRLEN + len);
	a->nla_type = type;
	memcpy(buf + off + MNL_ATTR_HDRLEN, p, len);
	memset(buf + off + MNL_ATTR_HDRLEN + len, 0, MNL_ALIGN(len) - len);
	return off + MNL_ATTR_HDRLEN + MNL_ALIGN(len);
}

/* One attribute of @type with @len bytes of payload: parsed (0) or refused (-1). */
static int t_one(uint16_t type, const void *p, uint16_t len)
{
	char buf[64] __attribute__((aligned(4)));
	const struct nlattr *tb[T_MAX + 1];
	struct afw_attr_set set = { T_MAX, types, tb };

	return afw_attrs_parse(buf, t_put(buf, 0, type, p, len), &set);
}

int main(void)
{
	static const char eight[8] = "1234567", str[] = "name";
	char buf[256] __attribute__((aligned(4))), mut[256] __attribute__((aligned(4)));
	const struct nlattr *tb[T_MAX + 1], *ref[T_MAX + 1];
	struct afw_attr_set set = { T_MAX, types, tb };
	unsigned int i, same = 1, kinds[2] = { 0 };
	int failed = 0, a, b;
	size_t n = 0, m;

	CHECK(failed, "a u8, u16, u32 and u64 of their own size are taken",
	      !t_one(T_U8, eight, 1) && !t_one(T_U16, eight, 2) && !t_one(T_U32, eight, 4) &&
	      !t_one(T_U64, eight, 8));
	CHECK(failed, "a u32 of 2 or of 8 bytes is refused",
	      t_one(T_U32, eight, 2) < 0 && t_one(T_U32, eight, 8) < 0);
	CHECK(failed, "a u8 of none, a u16 of one byte are refused",
	      t_one(T_U8, eight, 0) < 0 && t_one(T_U16, eight, 1) < 0);
	CHECK(failed, "binary of any length, even none, is taken",
	      !t_one(T_BIN, eight, 0) && !t_one(T_BIN, eight, 7));
	CHECK(failed, "a string with or without its NUL, not an empty one",
	      !t_one(T_STR, str, 4) && !t_one(T_STR, str, 5) && t_one(T_STR, str, 0) < 0);
	CHECK(failed, "a NUL-terminated string needs its NUL",
	      !t_one(T_NSTR, str, 5) && t_one(T_NSTR, str, 4) < 0);
	CHECK(failed, "a nest empty or with a header, not with two bytes",
	      !t_one(T_NEST, eight, 0) && !t_one(T_NEST, eight, 4) && t_one(T_NEST, eight, 2) < 0);
	CHECK(failed, "a flag with a payload is refused", !t_one(T_FLAG, eight, 0) &&
	      t_one(T_FLAG, eight, 1) < 0);
	CHECK(failed, "a type beyond the set, and one it leaves unchecked, are not refused",
	      !t_one(T_MAX + 5, eight, 3) && !t_one(T_ANY, eight, 3));

	n = t_put(buf, n, T_U32, eight, 4);
	n = t_put(buf, n, T_U8, eight, 1);
	n = t_put(buf, n, T_U32, eight + 4, 4);
	CHECK(failed, "attributes are filed by type, the last of one given twice counting",
	      !afw_attrs_parse(buf, n, &set) && tb[T_U8] && !tb[T_U16] &&
	      !memcmp(mnl_attr_get_payload(tb[T_U32]), eight + 4, 4));
	CHECK(failed, "a byte past the last attribute is refused", afw_attrs_parse(buf, n + 1, &set) < 0);
	CHECK(failed, "an attribute running past its container is refused",
	      afw_attrs_parse(buf, n - 4, &set) < 0);

	/* The same set, mutated a byte or a length at a time, both ways. */
	n = t_put(buf, 0, T_NSTR, str, 5);
	n = t_put(buf, n, T_NEST, buf, 8);
	n = t_put(buf, n, T_U16, eight, 2);
	n = t_put(buf, n, T_BIN, eight, 7);
	n = t_put(buf, n, T_FLAG, NULL, 0);
	n = t_put(buf, n, T_U64, eight, 8);
	n = t_put(buf, n, T_STR, str, 4);
	srandom(13);
	for (i = 0; i < 1000000; i++) {
		memcpy(mut, buf, n);
		m = n;
		switch (random() % 4) {
		case 0:		/* a byte anywhere */
			mut[random() % n] = (char)random();
			break;
		case 1:		/* a length, by a little */
			((struct nlattr *)(mut + 4 * (random() % (n / 4))))->nla_len += (uint16_t)(random() % 9) - 4;
			break;
		case 2:		/* cut short */
			m = (size_t)random() % n;
			break;
		default:	/* a type */
			((struct nlattr *)(mut + 4 * (random() % (n / 4))))->nla_type = (uint16_t)(random() % 14);
			break;
		}
		a = afw_attrs_parse(mut, m, &set);
		b = t_reference(mut, m, ref);
		kinds[a == 0]++;
		if (a != b || (a == 0 && memcmp(tb, ref, sizeof(tb)))) {
			same = 0;
			printf("# mutation %u: afw_attrs_parse %d, libmnl's loop %d\n", i, a, b);
			break;
		}
	}
	printf("# %u taken, %u refused\n", kinds[1], kinds[0]);
	CHECK(failed, "a million mutations: taken and refused as libmnl's loop does, filed the same",
	      same && kinds[0] > 100000 && kinds[1] > 100000);
	return failed;
}
