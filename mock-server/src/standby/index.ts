import type { FastifyInstance } from 'fastify';

/** The standby service, mounted at `/standby`. TODO: routes arrive with their issue. */
export async function standbyService(_app: FastifyInstance): Promise<void> {}
