import type { FastifyInstance } from 'fastify';

/** The events service, mounted at `/events`. TODO: routes arrive with their issue. */
export async function eventsService(_app: FastifyInstance): Promise<void> {}
