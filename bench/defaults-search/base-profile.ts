/**
 * What the search builds on in the engine it runs: the profile holding memberlist's exact defaults
 * (`memberlist-lan` once the engine has it; until then `lan`, which is memberlist's `DefaultLANConfig`),
 * and whether the engine has the host-silence rule (`SwimConfig.hostSilenceMs`).
 */
import { SWIM_CONFIG_KEYS } from '../../src/swim/config.js';
import { type ProfileName, profiles } from '../../src/swim/profiles.js';
import type { SearchProfile } from './scenarios.js';

function memberlistProfile(profile: SearchProfile): ProfileName {
  const name = `memberlist-${profile}`;
  return (name in profiles ? name : profile) as ProfileName;
}

/** The base profile of each searched profile's runs; every searched field is overridden on top. */
export const PROFILE_BASE: Readonly<Record<SearchProfile, ProfileName>> = {
  lan: memberlistProfile('lan'),
  wan: memberlistProfile('wan'),
  local: memberlistProfile('local'),
};

/** Whether the engine has `hostSilenceMs`, the search's last dimension. */
export const HAS_HOST_SILENCE = (SWIM_CONFIG_KEYS as readonly string[]).includes('hostSilenceMs');
