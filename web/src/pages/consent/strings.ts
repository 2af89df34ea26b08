/**
 * Strings of the OAuth consent page (/app/oauth/consent); the scopes' words are the settings
 * pages' own. `{app}` is where the app's name goes (isolated, so a Latin name keeps its order
 * in Arabic).
 */
const en = {
  title: 'Connect {app}?',
  asks: '{app} asks to act in one of your workspaces. It will be able to:',
  workspace: 'Workspace',
  workspaceHelp: 'Only the workspaces where your role allows all of this are listed.',
  noWorkspace: 'None of your workspaces gives you every one of these permissions, so you can only deny.',
  allow: 'Allow',
  deny: 'Deny',
  later: 'You can disconnect it at any time in the workspace settings.',
  signedInAs: 'Signed in as',
  loading: 'Loading…',
  cannot: 'This request cannot be shown: ',
  tellDeveloper: "Tell the app's developer; nothing was shared.",
  retry: 'Try again',
};

const ar: typeof en = {
  title: 'ربط «{app}»؟',
  asks: 'يطلب «{app}» أن يعمل في إحدى مساحات عملك. سيتمكّن من:',
  workspace: 'مساحة العمل',
  workspaceHelp: 'لا تظهر إلا مساحات العمل التي يسمح فيها دورك بكل ما سبق.',
  noWorkspace: 'لا تمنحك أيٌّ من مساحات عملك كل هذه الصلاحيات، لذا لا يمكنك إلا الرفض.',
  allow: 'سماح',
  deny: 'رفض',
  later: 'يمكنك قطع اتصاله في أي وقت من إعدادات مساحة العمل.',
  signedInAs: 'مسجّل الدخول باسم',
  loading: 'جارٍ التحميل…',
  cannot: 'لا يمكن عرض هذا الطلب: ',
  tellDeveloper: 'أبلغ مطوّر التطبيق؛ لم تُشارَك أي بيانات.',
  retry: 'أعد المحاولة',
};

export const strings = { en, ar };
