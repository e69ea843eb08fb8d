/**
 * Starts the platform simulator on 127.0.0.1:0 and talks to it over real HTTP: the admin paths
 * with the admin key, the APIs with the credentials each needs.
 */
import { listenOnLoopback } from 'content-gateway/lib';
import { createPlatformSimulator, type PlatformSimulator, type PlatformSimulatorOptions } from '../../../src/mocks/platform/create-platform-simulator';

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface CallInit {
  method?: string;
  body?: unknown;
  /** Raw body text (sent as is). */
  raw?: string;
  headers?: Record<string, string>;
}

export interface RunningSimulator {
  sim: PlatformSimulator;
  origin: string;
  call<T = any>(path: string, init?: CallInit): Promise<HttpResult<T>>;
  admin<T = any>(path: string, init?: CallInit): Promise<HttpResult<T>>;
  /** A JWT from the token endpoint for `scope`, optionally acting for a person. */
  token(scope: 'conversations' | 'data', userEmail?: string): Promise<string>;
  /** Headers of a Conversations API call: a fresh JWT and the right Assistant-Name. */
  conversationHeaders(userEmail?: string): Promise<Record<string, string>>;
  /** Asks the assistant through the admin path. */
  ask(email: string, question: string, extra?: Record<string, unknown>): Promise<{ conversation_id: string; response_id: string; messages: any[] }>;
  close(): Promise<void>;
}

export async function startSimulator(options: PlatformSimulatorOptions = {}): Promise<RunningSimulator> {
  const sim = createPlatformSimulator(options);
  const { url: origin, close } = await listenOnLoopback(sim.app);
  const call = async <T = any>(path: string, init: CallInit = {}): Promise<HttpResult<T>> => {
    const headers: Record<string, string> = { ...(init.headers ?? {}) };
    let body: string | undefined = init.raw;
    if (body === undefined && init.body !== undefined) body = JSON.stringify(init.body);
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    const res = await fetch(path.startsWith('http') ? path : `${origin}${path}`, {
      method: init.method ?? (body !== undefined ? 'POST' : 'GET'),
      headers,
      body,
    });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
  const admin = <T = any>(path: string, init: CallInit = {}) =>
    call<T>(`/_admin${path}`, { ...init, headers: { authorization: `Bearer ${sim.credentials.adminKey}`, ...(init.headers ?? {}) } });
  const token = async (scope: 'conversations' | 'data', userEmail?: string): Promise<string> => {
    const client = sim.credentials.clients[scope];
    const res = await call('/oauth/v1/token', {
      body: {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_type: 'client_credentials',
        ...(userEmail ? { user_email: userEmail } : {}),
      },
    });
    if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
    return res.body.access_token as string;
  };
  return {
    sim,
    origin,
    call,
    admin,
    token,
    conversationHeaders: async (userEmail) => ({
      authorization: `Bearer ${await token('conversations', userEmail)}`,
      'assistant-name': sim.credentials.assistantName,
    }),
    ask: async (email, question, extra = {}) => {
      const res = await admin('/ask', { body: { email, question, ...extra } });
      if (res.status !== 200) throw new Error(`ask: ${res.status} ${res.text}`);
      return res.body;
    },
    close: async () => {
      sim.close();
      await close();
    },
  };
}

/** The final assistant message of an answer. */
export function finalMessage(messages: any[]): any {
  return messages[messages.length - 1];
}
