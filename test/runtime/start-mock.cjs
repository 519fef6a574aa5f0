// start-mock.cjs: the mock server every app of the runtime matrix talks to, started by
// test/runtime/run.ts on the engines floor from the packed mock server's CommonJS entry (what an
// Electron 30 main process or a Jest setup on Node 20.11 would require). Standby active, the
// admin API on (the apps set the main-down drill), signed events only, with the one event key
// named on the command line trusted for writes and reads. Prints the start line (JSON) on stdout
// and closes cleanly on SIGTERM.
'use strict';

const { readFileSync } = require('node:fs');
const { startServer } = require('@standby-licensing/mock-server');

const [eventKeyFile] = process.argv.slice(2);
const eventKey = readFileSync(eventKeyFile, 'utf8');

startServer({
  port: 0,
  host: '127.0.0.1',
  state: 'active',
  admin: true,
  eventWriterKeys: [eventKey],
  eventReaderKeys: [eventKey],
  requireSignedEvents: true,
}).then(
  (server) => {
    console.log(JSON.stringify(server.info));
    process.once('SIGTERM', () => {
      server.close().then(() => process.exit(0));
    });
  },
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
