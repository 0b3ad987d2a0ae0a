// SPDX-License-Identifier: GPL-2.0
/*
 * Per network namespace state: created with the namespace (or at module load
 * for the ones that exist), torn down with it. The hooks come later, when
 * the namespace is first configured.
 */

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/random.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>
#include <uapi/linux/afw.h>

#include "hook.h"
#include "netns.h"
#include "ruleset.h"
#include "serve.h"

unsigned int afw_net_id __read_mostly;

/*
 * Exported by the netfilter core for modules whose hooks leave packets in
 * the queues (xt_CT and nft_ct use it), but declared in its private header
 * only.
 */
void nf_queue_nf_hook_drop(struct net *net);

/* The range AFW_CFG_A_MAX_FLOWS takes. */
static int afw_param_max_flows_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, AFW_MAX_FLOWS_LIMIT);
}

static const struct kernel_param_ops afw_param_max_flows_ops = {
	.set = afw_param_max_flows_set,
	.get = param_get_uint,
};

unsigned int afw_default_max_flows __read_mostly = 65536;
module_param_cb(max_flows, &afw_param_max_flows_ops, &afw_default_max_flows, 0644);
MODULE_PARM_DESC(max_flows, "Flow table bound of new namespaces, 1-16777216 (afwctl config changes one)");

void afw_config_publish(struct afw_net *an, struct afw_config *cfg)
{
	struct afw_config *old = afw_config_locked(an);

	rcu_assign_pointer(an->cfg, cfg);
	kfree_rcu(old, rcu);
}

int afw_net_activate(struct net *net, struct netlink_ext_ack *extack)
{
	struct afw_net *an = afw_net(net);
	int ret;

	lockdep_assert_held(&an->lock);
	if (an->active)
		return 0;
	/*
	 * Like conntrack: afw sees a datagram whole, so a later fragment
	 * gets the verdict of the flow its first fragment belongs to.
	 */
	ret = nf_defrag_ipv4_enable(net);
	if (ret)
		goto err_defrag4;
	ret = nf_defrag_ipv6_enable(net);
	if (ret)
		goto err_defrag6;
	/* Hooks go last: once registered, packets may use everything. */
	ret = afw_hooks_register(net, an);
	if (ret)
		goto err_hooks;
	WRITE_ONCE(an->active, true);
	return 0;

err_hooks:
	nf_defrag_ipv6_disable(net);
err_defrag6:
	nf_defrag_ipv4_disable(net);
err_defrag4:
	NL_SET_ERR_MSG_MOD(extack, "cannot register the netfilter hooks in this namespace");
	return ret;
}

static int __net_init afw_net_init(struct net *net)
{
	struct afw_net *an = afw_net(net);
	struct afw_config *cfg;
	int ret;

	write_pnet(&an->net, net);
	mutex_init(&an->lock);
	get_random_bytes(&an->queue_key, sizeof(an->queue_key));
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL_ACCOUNT);
	if (!cfg)
		return -ENOMEM;
	cfg->unknown = AFW_UNKNOWN_ACCEPT;
	cfg->queue_count = 1;
	cfg->max_flows = READ_ONCE(afw_default_max_flows);
	cfg->flow_timeout = AFW_FLOW_TIMEOUT_DEFAULT;
	cfg->tcp_timeout = AFW_TCP_TIMEOUT_DEFAULT;
	cfg->udp_timeout = AFW_UDP_TIMEOUT_DEFAULT;
	cfg->enabled = 1;
	cfg->owners = 1;
	RCU_INIT_POINTER(an->cfg, cfg);

	an->stats = afw_stats_alloc();
	if (!an->stats) {
		ret = -ENOMEM;
		goto err_stats;
	}
	ret = afw_flows_init(an);
	if (ret)
		goto err_flows;
	ret = afw_owners_init(an);
	if (ret)
		goto err_owners;
	ret = afw_learn_init(&an->learn);
	if (ret)
		goto err_learn;
	return 0;

err_learn:
	afw_owners_exit(an);
err_owners:
	afw_flows_exit(an);
err_flows:
	afw_stats_free(an->stats);
err_stats:
	kfree(cfg);
	return ret;
}

/*
 * A queued packet remembers its place in the namespace's hook array, and
 * goes back there, verdict or flush, through nf_reinject(). Once afw's hooks
 * are gone that place is wrong: the core warns and drops it. Unregistering
 * flushes the queues it can see, but not one whose listener has just died:
 * that queue has left the table and flushes from an RCU callback, maybe
 * after the hooks have gone (seen under the stress test: an afwd killed
 * during rmmod; a namespace whose last process was its afwd goes the same
 * way). So before the hooks go, afw stops queueing (@draining: a packet that
 * would be queued meets the fail setting), waits for the hooks still
 * queueing, flushes the live queues itself, and waits for the dying ones'
 * callbacks. A queue that dies after that holds none of afw's packets.
 *
 * The flush is done twice, a grace period apart: a verdict may have taken
 * its packet off a queue just before the first, and, answered NF_QUEUE,
 * put it back in one.
 */
static void afw_net_flush(struct net *net)
{
	nf_queue_nf_hook_drop(net);
	synchronize_net();
	nf_queue_nf_hook_drop(net);
}

/*
 * The hooks go before anything they use: the pernet core waits for a grace
 * period between every pre_exit and the first exit, so no packet is still
 * inside a hook when afw_net_exit() frees its state. Unregistering alone
 * does not wait; it only frees the old hook array after a grace period.
 * No request can run now (their sockets hold the namespace), so @active
 * needs no lock.
 */
static void __net_exit afw_net_pre_exit(struct net *net)
{
	struct afw_net *an = afw_net(net);

	if (!an->active)
		return;
	/* At unload, afw_netns_drain() has done this for every namespace. */
	if (!READ_ONCE(an->draining)) {
		WRITE_ONCE(an->draining, true);
		synchronize_net();
		afw_net_flush(net);
		rcu_barrier();
	}
	afw_hooks_unregister(net, an);
	nf_defrag_ipv6_disable(net);
	nf_defrag_ipv4_disable(net);
}

static void __net_exit afw_net_exit(struct net *net)
{
	struct afw_net *an = afw_net(net);
	struct afw_ruleset *rs;

	afw_learn_exit(&an->learn);
	/* Owners first: their collector looks their flows up. */
	afw_owners_exit(an);
	afw_flows_exit(an);
	kfree(an->hook_ops);
	rs = rcu_dereference_protected(an->ruleset, true);
	if (rs)
		afw_ruleset_free(rs);
	afw_stage_free(an->stage);
	afw_stats_free(an->stats);
	afw_serve_free(an);
	kfree(rcu_dereference_protected(an->cfg, true));
	mutex_destroy(&an->lock);
}

static struct pernet_operations afw_net_ops = {
	.init = afw_net_init,
	.pre_exit = afw_net_pre_exit,
	.exit = afw_net_exit,
	.id = &afw_net_id,
	.size = sizeof(struct afw_net),
};

int afw_netns_init(void)
{
	return register_pernet_subsys(&afw_net_ops);
}

static void afw_netns_flush_active(void)
{
	struct net *net;

	down_read(&net_rwsem);
	for_each_net(net)
		if (afw_net(net)->active)
			nf_queue_nf_hook_drop(net);
	up_read(&net_rwsem);
}

/*
 * At unload, afw_net_pre_exit()'s drain for every namespace at once: one
 * set of grace periods for all. Runs after the control family is gone, so
 * no namespace can become active meanwhile; one that is being dismantled
 * has left the list, and drains in its own pre_exit.
 */
static void afw_netns_drain(void)
{
	struct net *net;

	down_read(&net_rwsem);
	for_each_net(net)
		WRITE_ONCE(afw_net(net)->draining, true);
	up_read(&net_rwsem);
	synchronize_net();
	afw_netns_flush_active();
	synchronize_net();
	afw_netns_flush_active();
	rcu_barrier();
}

void afw_netns_exit(void)
{
	afw_netns_drain();
	unregister_pernet_subsys(&afw_net_ops);
}
