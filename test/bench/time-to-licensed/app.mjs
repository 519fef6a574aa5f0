// Bench row 8, the measured app (an ES module, as a plain Node app without a bundler writes it):
// import the SDK, make a licensing client with a file lease store, restore the two saved leases
// offline and check one. Prints the process's CPU time (user + sys, every thread, since the
// process started) at each step as one JSON line, then exits. Run in the consumer project.
import { readFileSync } from 'node:fs';

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const marks = { started: cpuMs() };
const { createLicensingClient } = await import('@standby-licensing/sdk');
const { createFileLeaseStore } = await import('@standby-licensing/sdk/node');
marks.imported = cpuMs();
const config = JSON.parse(readFileSync('app-config.json', 'utf8'));
const client = createLicensingClient({
  mainUrl: config.mainUrl,
  standbyUrl: config.standbyUrl,
  auth: {
    idToken: () => {
      throw new Error('offline: no ID token');
    },
  },
  trust: { rootCertificates: config.rootCertificates },
  leaseStore: createFileLeaseStore(config.leaseFile),
  hardwareId: config.hardwareId,
});
marks.client = cpuMs();
const { leases } = await client.restore();
const licensed = client.has('ItemA') && client.has('ItemB');
marks.licensed = cpuMs();
if (leases.length !== 2 || !licensed) {
  process.stderr.write(`restored ${leases.length} leases, licensed ${licensed}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(marks)}\n`);
process.exit(0);
