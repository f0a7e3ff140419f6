/* Prints the C layout of the option structs ("struct field offset" and
 * "struct sizeof N") so binding tests can compare their mirrors. */
#include <stddef.h>
#include <stdio.h>

#include "dval.h"

#define F(s, f) printf("%s %s %zu\n", #s, #f, offsetof(s, f))
#define Z(s) printf("%s sizeof %zu\n", #s, sizeof(s))

int main(void)
{
    Z(dval_client_options);
    F(dval_client_options, executor);
    F(dval_client_options, log_fn); F(dval_client_options, log_level);
    F(dval_client_options, retry_base_ms); F(dval_client_options, retry_jitter);
    F(dval_client_options, max_download_bytes);
    F(dval_client_options, daytona); F(dval_client_options, local);
    Z(dval_daytona_options);
    F(dval_daytona_options, api_url); F(dval_daytona_options, target);
    F(dval_daytona_options, ca_bundle);
    F(dval_daytona_options, insecure_skip_tls_verify);
    F(dval_daytona_options, request_timeout_ms);
    Z(dval_local_options);
    F(dval_local_options, state_dir); F(dval_local_options, allow_unisolated);
    F(dval_local_options, max_pids); F(dval_local_options, max_cpu_ms);
    F(dval_local_options, host_root);
    Z(dval_snapshot_spec);
    F(dval_snapshot_spec, build_commands); F(dval_snapshot_spec, cpu);
    F(dval_snapshot_spec, target); F(dval_snapshot_spec, rebuild_failed);
    F(dval_snapshot_spec, build_timeout_ms);
    Z(dval_sandbox_options);
    F(dval_sandbox_options, labels); F(dval_sandbox_options, cpu);
    F(dval_sandbox_options, network); F(dval_sandbox_options, target);
    F(dval_sandbox_options, release); F(dval_sandbox_options, create_timeout_ms);
    F(dval_sandbox_options, no_recover); F(dval_sandbox_options, on_state);
    F(dval_sandbox_options, max_pids); F(dval_sandbox_options, max_cpu_ms);
    Z(dval_exec_options);
    F(dval_exec_options, cwd); F(dval_exec_options, timeout_ms);
    F(dval_exec_options, env);
    /* sizeof grows when the library appends a field (e.g. the cancel
     * token): the bindings must then use their matching mirror */
    Z(dval_validation);
    F(dval_validation, thread_id); F(dval_validation, timeout_ms);
    F(dval_validation, release); F(dval_validation, labels);
    F(dval_validation, allow_missing_results);
    F(dval_validation, isolation); F(dval_validation, disk_gib);
    F(dval_validation, services); F(dval_validation, seeds);
    F(dval_validation, memory_mib); F(dval_validation, cpu_time_ms);
    F(dval_validation, expected); F(dval_validation, compare);
    F(dval_validation, args); F(dval_validation, stdin_data);
    F(dval_validation, stdin_len); F(dval_validation, results_bytes);
    Z(dval_pool_options);
    F(dval_pool_options, name); F(dval_pool_options, idle_timeout_ms);
    F(dval_pool_options, labels); F(dval_pool_options, max_queue);
    F(dval_pool_options, release); F(dval_pool_options, ttl_minutes);
    F(dval_pool_options, services); F(dval_pool_options, seeds);
    Z(dval_pool_stats);
    F(dval_pool_stats, max_sandboxes); F(dval_pool_stats, waiting);
    F(dval_pool_stats, completed); F(dval_pool_stats, canceled_waiting);
    F(dval_pool_stats, wait_ms_max);
    Z(dval_event);
    F(dval_event, phase); F(dval_event, elapsed_ms); F(dval_event, channel);
    F(dval_event, len); F(dval_event, state); F(dval_event, detail);
    return 0;
}
