// Entry of a fleet worker process: runs one fleet (`fleet.ts`) as the parent tells it over IPC.
import { createFleet, type Fleet, type FleetConfig } from './fleet.js';

/** Messages from the parent (`fleet-pool.ts`). */
export type FleetCommand =
  | { type: 'init'; config: FleetConfig }
  | { type: 'begin'; epochMs: number }
  | { type: 'progress' }
  | { type: 'stop' };

/** Messages to the parent. */
export type FleetMessage =
  | { type: 'ready' }
  | { type: 'progress'; progress: ReturnType<Fleet['progress']> }
  | { type: 'report'; report: Awaited<ReturnType<Fleet['stop']>> }
  | { type: 'error'; message: string };

const send = (message: FleetMessage) => process.send?.(message);
let fleet: Fleet | undefined;

process.on('message', (command: FleetCommand) => {
  try {
    switch (command.type) {
      case 'init':
        fleet = createFleet(command.config);
        send({ type: 'ready' });
        break;
      case 'begin':
        fleet?.begin(command.epochMs);
        break;
      case 'progress':
        if (fleet) send({ type: 'progress', progress: fleet.progress() });
        break;
      case 'stop':
        void fleet?.stop().then(
          (report) => send({ type: 'report', report }),
          (error: unknown) => send({ type: 'error', message: String(error) }),
        );
        break;
    }
  } catch (error) {
    send({
      type: 'error',
      message: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
});
// The parent going away ends the worker too.
process.on('disconnect', () => process.exit(0));
