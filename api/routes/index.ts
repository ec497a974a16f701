/** Every route group of the API. A new group adds one line here. */
import type { AnyRoute } from '../route.ts';
import system from './system/routes.ts';
import auth from './auth/routes.ts';
import business from './business/routes.ts';
import team from './team/routes.ts';

export const allRoutes: AnyRoute[] = [...system, ...auth, ...business, ...team];
