import { defineConfig } from 'vitest/config';

/**
 * `npm run test:ovs`: the tests that run a real Open vSwitch (Debian's `openvswitch-switch`:
 * ovsdb-server and ovs-vswitchd with the userspace dummy datapath, no kernel module, no service) as
 * the peer of the OpenFlow engine (issue 17 §4; test/ovs/peer/). Without OVS each file skips with a
 * message saying so, unless HNSIM_OVS_REQUIRED=1 (CI), which makes a missing OVS a failure. One
 * daemon pair per file; files run one at a time (the machine has two cores).
 */
export default defineConfig({
  test: {
    include: ['test/ovs/peer/**/*.test.ts'],
    setupFiles: ['./vitest.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
