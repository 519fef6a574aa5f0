// Bench row 8, the reference: a bare Node process that does nothing but print its CPU time
// (ms, user + sys since the process started) in the same form as app.mjs, then exit.
const { user, system } = process.cpuUsage();
const cpu = (user + system) / 1000;
process.stdout.write(`${JSON.stringify({ started: cpu, licensed: cpu })}\n`);
process.exit(0);
