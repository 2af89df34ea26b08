import { useStrings } from '../../i18n/index.js';
import { strings } from './strings.js';

/** The settings pages' words in the chosen language (apart from strings.ts, which stays plain data the tests read without Preact). */
export const useSettingsStrings = () => useStrings(strings);
