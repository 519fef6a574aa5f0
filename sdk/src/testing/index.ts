// The testing kit (msw handlers for outages); msw is an optional peer dependency.
export {};
