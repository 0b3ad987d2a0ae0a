// SPDX-License-Identifier: GPL-2.0
/*
 * afw: application firewall. Module load and unload only; each concern lives
 * in its own file (see docs/architecture.md).
 */

#include <linux/module.h>
#include <net/genetlink.h>

#include "classify.h"
#include "flows.h"
#include "genl.h"
#include "ident.h"
#include "netns.h"
#include "owner.h"
#include "rule.h"
#include "selftest.h"
#include "version.h"

static int __init afw_mod_init(void)
{
	int ret;

	ret = afw_ident_init();
	if (ret)
		goto err_ident;

	ret = afw_rule_init();
	if (ret)
		goto err_rule;

	ret = afw_classify_init();
	if (ret)
		goto err_classify;

	ret = afw_flows_module_init();
	if (ret)
		goto err_flows;

	ret = afw_owner_module_init();
	if (ret)
		goto err_owner;

	ret = afw_selftest();
	if (ret)
		goto err_selftest;

	ret = afw_netns_init();
	if (ret)
		goto err_netns;

	/* Control last: a request may only arrive once every netns is set up. */
	ret = afw_genl_init();
	if (ret)
		goto err_genl;

	pr_info("version " AFW_VERSION " loaded\n");
	return 0;

err_genl:
	afw_netns_exit();
err_netns:
err_selftest:
	afw_owner_module_exit();
err_owner:
	afw_flows_module_exit();
err_flows:
	afw_classify_exit();
err_classify:
	afw_rule_exit();
err_rule:
	afw_ident_exit();
err_ident:
	return ret;
}

static void __exit afw_mod_exit(void)
{
	afw_genl_exit();
	afw_netns_exit();
	afw_owner_module_exit();
	afw_flows_module_exit();
	/* Frees the last snapshots, and with them the last rules. */
	afw_classify_exit();
	afw_rule_exit();
	afw_ident_exit();
	pr_info("version " AFW_VERSION " unloaded\n");
}

module_init(afw_mod_init);
module_exit(afw_mod_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("afw application firewall");
MODULE_AUTHOR("The afw developers");
MODULE_VERSION(AFW_VERSION);
MODULE_ALIAS_GENL_FAMILY(AFW_GENL_NAME);
