/** Strings of the accept-invitation page. */
const en = {
  title: 'Join a Linktrail workspace',
  noToken: 'This page needs the invitation link you were sent (it ends in ?token=…). Ask the workspace owner to send it again.',
  intro: 'You were invited to a workspace. Accept to join it.',
  signedInAs: (name: string, email: string) => `You are signed in as ${name} (${email}).`,
  otherEmail: 'The invitation is for the address it was sent to: sign out and accept with that account if it is another one.',
  accept: 'Accept invitation',
  signOut: 'Sign out',
  newAccount: 'Create an account',
  haveAccount: 'I already have an account',
  chooseLabel: 'How do you want to join?',
  newIntro: 'Your account will use the email address the invitation was sent to.',
  name: 'Your name',
  newPassword: 'Choose a password',
  newPasswordHelp: '8 to 256 characters; common passwords are refused.',
  createAndJoin: 'Create account and join',
  email: 'Email',
  password: 'Password',
  signInAndJoin: 'Sign in and join',
  signInIntro: 'Sign in with the account the invitation was sent to.',
  working: 'Joining…',
  /** What the invitation is for (POST /api/invites/lookup); names isolated (they may be in either script). */
  invitedBy: (inviter: string | null, workspace: string, role: 'owner' | 'member' | 'viewer') =>
    `${inviter ? `\u2068${inviter}\u2069 invited you` : 'You were invited'} to join the workspace “\u2068${workspace}\u2069” as ${{ owner: 'an owner', member: 'a member', viewer: 'a viewer' }[role]}.`,
  invitedAddress: (email: string) => `The invitation is for ${email}.`,
  partnerTitle: 'Join a partner program',
  partnerIntro: 'You were invited to a partner program. Accept to see your links, figures and earnings.',
  partnerInvited: (partner: string, program: string) => `\u2068${partner}\u2069, you are invited to the partner program “\u2068${program}\u2069”.`,
  openPortal: 'Open your partner portal',
  partnerJoined: (program: string) =>
    `You are now a partner${program ? ` in “\u2068${program}\u2069”` : ''}. Your links, figures and earnings will be in your partner portal, at this address.`,
};

export type InviteStrings = typeof en;

const ar: InviteStrings = {
  title: 'الانضمام إلى مساحة عمل في Linktrail',
  noToken: 'تحتاج هذه الصفحة إلى رابط الدعوة الذي أُرسل إليك (ينتهي بـ ?token=…). اطلب من مالك مساحة العمل إرساله مرة أخرى.',
  intro: 'دُعيت إلى مساحة عمل. اقبل الدعوة للانضمام إليها.',
  signedInAs: (name: string, email: string) => `أنت مسجّل الدخول باسم ${name} (${email}).`,
  otherEmail: 'الدعوة للعنوان الذي أُرسلت إليه: إن كان غير هذا الحساب فسجّل الخروج واقبلها بذلك الحساب.',
  accept: 'قبول الدعوة',
  signOut: 'تسجيل الخروج',
  newAccount: 'إنشاء حساب',
  haveAccount: 'لديّ حساب بالفعل',
  chooseLabel: 'كيف تريد الانضمام؟',
  newIntro: 'سيستخدم حسابك عنوان البريد الإلكتروني الذي أُرسلت إليه الدعوة.',
  name: 'اسمك',
  newPassword: 'اختر كلمة مرور',
  newPasswordHelp: 'من 8 إلى 256 حرفًا؛ تُرفض كلمات المرور الشائعة.',
  createAndJoin: 'إنشاء الحساب والانضمام',
  email: 'البريد الإلكتروني',
  password: 'كلمة المرور',
  signInAndJoin: 'تسجيل الدخول والانضمام',
  signInIntro: 'سجّل الدخول بالحساب الذي أُرسلت إليه الدعوة.',
  working: 'جارٍ الانضمام…',
  invitedBy: (inviter, workspace, role) =>
    `${inviter ? `دعاك \u2068${inviter}\u2069` : 'دُعيت'} للانضمام إلى مساحة العمل «\u2068${workspace}\u2069» ${{ owner: 'مالكًا', member: 'عضوًا', viewer: 'مشاهدًا' }[role]}.`,
  invitedAddress: (email) => `الدعوة للعنوان \u2068${email}\u2069.`,
  partnerTitle: 'الانضمام إلى برنامج شركاء',
  partnerIntro: 'دُعيت إلى برنامج شركاء. اقبل الدعوة لترى روابطك وأرقامك وأرباحك.',
  partnerInvited: (partner, program) => `\u2068${partner}\u2069، أنت مدعو إلى برنامج الشركاء «\u2068${program}\u2069».`,
  openPortal: 'افتح بوابة الشركاء',
  partnerJoined: (program) =>
    `أصبحت الآن شريكًا${program ? ` في «\u2068${program}\u2069»` : ''}. ستجد روابطك وأرقامك وأرباحك في بوابة الشركاء، على هذا العنوان.`,
};

export const strings = { en, ar };
