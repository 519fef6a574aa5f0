// Bench row 8, the same app as app.mjs in CommonJS (an Electron main process): require() the
// SDK's CommonJS entries, make a client with a file lease store, restore two leases offline,
// check one; prints the CPU time at each step (ms, user + sys) as one JSON line and exits.
'use strict';
const { readFileSync } = require('node:fs');

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const marks = { started: cpuMs() };
const { createLicensingClient } = require('@standby-licensing/sdk');
const { createFileLeaseStore } = require('@standby-licensing/sdk/node');
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
client.restore().then(({ leases }) => {
  const licensed = client.has('ItemA') && client.has('ItemB');
  marks.licensed = cpuMs();
  if (leases.length !== 2 || !licensed) {
    process.stderr.write(`restored ${leases.length} leases, licensed ${licensed}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(marks)}\n`);
  process.exit(0);
});
