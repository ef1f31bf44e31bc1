import type { SdkConnection } from '../contracts/sdk-connections';
import type { PayloadOptions } from './types';

/** The connection settings that shape what its payload holds, kept on the key item too. */
export const payloadSettings = [
  'languages',
  'sdkVersion',
  'includeVisualExperiments',
  'includeDraftExperiments',
  'includeExperimentNames',
  'includeRedirectExperiments',
  'includeRuleIds',
  'includeProjectIdInMetadata',
  'includeCustomFieldsInMetadata',
  'allowedCustomFieldsInMetadata',
  'includeTagsInMetadata',
  'hashSecureAttributes',
  'remoteEvalEnabled',
  'savedGroupReferencesEnabled',
] as const;
export type PayloadSettings = Partial<Pick<SdkConnection, (typeof payloadSettings)[number]>>;

/** What an SDK connection asks for: one environment, projects (none means all), and the settings that shape its payload. */
export interface PayloadScope extends PayloadSettings {
  orgId: string;
  environment: string;
  projects: string[];
  /** When the connection itself last changed: a connection moved to another environment must not look unchanged. */
  dateUpdated: string;
}

/** The `metadata` options of a connection's payload: what the connection asks for, and the id to show for each project. */
export function metadataOptions(scope: PayloadSettings, projectIds: Map<string, string>): NonNullable<PayloadOptions['metadata']> {
  return {
    includeProjectIdInMetadata: scope.includeProjectIdInMetadata,
    includeTagsInMetadata: scope.includeTagsInMetadata,
    includeCustomFieldsInMetadata: scope.includeCustomFieldsInMetadata,
    allowedCustomFieldsInMetadata: scope.allowedCustomFieldsInMetadata,
    projectIds,
  };
}
