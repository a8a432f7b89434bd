-- AlterTable
ALTER TABLE "Event" ADD COLUMN     "attendanceMode" TEXT NOT NULL DEFAULT 'offline',
ADD COLUMN     "onlineUrl" TEXT NOT NULL DEFAULT '';
