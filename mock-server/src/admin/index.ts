import type { FastifyInstance } from 'fastify';

/** The admin service, mounted at `/admin`. TODO: routes arrive with their issue. */
export async function adminService(_app: FastifyInstance): Promise<void> {}
