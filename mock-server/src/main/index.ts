import type { FastifyInstance } from 'fastify';

/** The main service, mounted at `/main`. TODO: routes arrive with their issue. */
export async function mainService(_app: FastifyInstance): Promise<void> {}
