// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: created with the namespace (or at module load
 * for the ones that exist), torn down with it.
 */

#include <linux/module.h>
#include <linux/random.h>
#include <uapi/linux/afw.h>

#include "hook.h"
#include "netns.h"
#include "ruleset.h"

unsigned int afw_net_id __read_mostly;

unsigned int afw_default_max_flows __read_mostly = 65536;
module_param_named(max_flows, afw_default_max_flows, uint, 0644);
MODULE_PARM_DESC(max_flows, "Flow table bound of new namespaces (afwctl config changes one)");

static int __net_init afw_net_init(struct net *net)
{
	struct afw_net *an = afw_net(net);
	int ret;

	mutex_init(&an->lock);
	an->cfg.unknown = AFW_UNKNOWN_ACCEPT;
	an->cfg.queue_count = 1;
	an->cfg.max_flows = READ_ONCE(afw_default_max_flows);
	an->cfg.flow_timeout = 300;
	an->queue_seed = get_random_u32();
	afw_flows_init(an);
	an->stats = afw_stats_alloc();
	if (!an->stats)
		return -ENOMEM;

	/* Hooks go last: once registered, packets may use everything above. */
	ret = afw_hooks_register(net);
	if (ret)
		goto err_free_stats;
	return 0;

err_free_stats:
	afw_stats_free(an->stats);
	return ret;
}

static void __net_exit afw_net_exit(struct net *net)
{
	struct afw_net *an = afw_net(net);
	struct afw_ruleset *rs;

	/* Unregistering waits for packets in flight: nothing reads below. */
	afw_hooks_unregister(net);
	afw_flows_exit(an);
	/* Nor can control requests arrive: their sockets hold the netns. */
	rs = rcu_dereference_protected(an->ruleset, true);
	if (rs)
		afw_ruleset_free(rs);
	afw_stage_free(an->stage);
	afw_stats_free(an->stats);
	mutex_destroy(&an->lock);
}

static struct pernet_operations afw_net_ops = {
	.init = afw_net_init,
	.exit = afw_net_exit,
	.id = &afw_net_id,
	.size = sizeof(struct afw_net),
};

int afw_netns_init(void)
{
	return register_pernet_subsys(&afw_net_ops);
}

void afw_netns_exit(void)
{
	unregister_pernet_subsys(&afw_net_ops);
}
