/** The header every portal request carries: the program the partner acts in. */
export const programHeader = (programId: string) => ({ header: { 'x-program-id': programId } });
